// What every end-to-end suite starts from: the pinned n8n runtime, the package packed as npm publishes
// it, and a fresh n8n user folder with the package installed as users install it.
import { installPackage, packPackage } from '../../../scripts/lib/community-package.mjs';
import { ensureRuntime } from '../../../scripts/lib/runtime-install.mjs';
import { createUserFolder, removeUserFolder } from '../../../scripts/lib/user-folder.mjs';

/**
 * Installs the packed package into a new user folder of the runtime (the pinned one, or `version`).
 * Returns `{ userFolder, installed, seconds, remove }`: `seconds` is how long the runtime took to be
 * ready, `remove()` deletes the folder and the pack.
 */
export async function installedPackage({ version } = {}) {
	const started = Date.now();
	await ensureRuntime({ version, log: (line) => console.log(`[n8n-runtime] ${line}`) });
	const seconds = Math.round((Date.now() - started) / 1000);
	const pack = await packPackage();
	let userFolder;
	const remove = () => {
		if (userFolder) removeUserFolder(userFolder);
		pack.remove();
	};
	try {
		userFolder = createUserFolder();
		const installed = await installPackage(userFolder, pack.tarball);
		return { userFolder, installed, seconds, remove };
	} catch (error) {
		remove();
		throw error;
	}
}

/** A Voice Agent API credential as `importCredentials` takes it. */
export function voiceAgentCredential({ id, name }, apiKey, baseUrl) {
	return { id, name, type: 'voiceAgentApi', data: { apiKey, baseUrl } };
}
