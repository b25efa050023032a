// Throwaway n8n user folders (N8N_USER_FOLDER): n8n keeps its data in `<folder>/.n8n`, the harness
// its import files and server logs in `<folder>/.harness`. Node built-ins only.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A new user folder in the OS temp folder.
 * @param {{ prefix?: string, parent?: string }} [options]
 * @returns {string} absolute path
 */
export function createUserFolder({ prefix = 'voice-agent-n8n-', parent = os.tmpdir() } = {}) {
	const dir = fs.mkdtempSync(path.join(parent, prefix));
	fs.mkdirSync(path.join(dir, '.n8n'), { recursive: true });
	return dir;
}

/** Deletes a user folder made by createUserFolder (stop its server first). */
export function removeUserFolder(userFolder) {
	fs.rmSync(userFolder, { recursive: true, force: true });
}

/** The harness's own folder inside a user folder (import files, server logs). */
export function harnessDir(userFolder) {
	const dir = path.join(userFolder, '.harness');
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}
