// A real browser for the n8n editor: Debian's Chromium driven by playwright-core. Shared by the
// browser suite (test/e2e/editor.e2e.test.mjs) and `npm run screenshots`.
//
// Chromium comes from the system, not from a download at install time: CHROMIUM_PATH names a
// binary, otherwise /usr/bin/chromium is used, and it is installed with apt when it is missing and
// this runs as root on Debian. Anywhere else the run stops and says what to install.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';

export const CHROMIUM_ENV = 'CHROMIUM_PATH';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-dev-shm-usage',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
export const VIEWPORT = Object.freeze({ width: 1440, height: 900 });

function isDebian() {
	try {
		return /^ID(_LIKE)?=.*debian/m.test(fs.readFileSync('/etc/os-release', 'utf8'));
	} catch {
		return false;
	}
}

function aptGet(args, log) {
	log(`apt-get ${args.join(' ')}`);
	const result = spawnSync('apt-get', args, {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		encoding: 'utf8',
		timeout: 15 * 60_000,
	});
	if (result.status !== 0) {
		const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').slice(-15).join('\n');
		throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status}):\n${output}`);
	}
}

/**
 * The Chromium binary to drive: CHROMIUM_PATH, or Debian's /usr/bin/chromium, installed with apt
 * when missing on Debian as root. Throws a message that says what to install otherwise.
 * @param {{ log?: (line: string) => void }} [options]
 */
export function ensureChromium({ log = () => {} } = {}) {
	const named = process.env[CHROMIUM_ENV];
	if (named) {
		if (!fs.existsSync(named)) throw new Error(`${CHROMIUM_ENV}=${named}: no such file`);
		return named;
	}
	if (fs.existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
	const root = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isDebian() || !root) {
		throw new Error(
			`The browser tests need Chromium, and there is none at ${DEBIAN_CHROMIUM}. ` +
				'On Debian or Ubuntu: `sudo apt-get install -y chromium`; elsewhere install Chromium ' +
				`and set ${CHROMIUM_ENV} to its binary.`,
		);
	}
	log('Chromium is missing: installing Debian\'s "chromium" package with apt (a few minutes)');
	aptGet(['update', '-q'], log);
	aptGet(
		['install', '-y', '-q', '-o', 'DPkg::Lock::Timeout=600', '--no-install-recommends', 'chromium'],
		log,
	);
	if (!fs.existsSync(DEBIAN_CHROMIUM)) {
		throw new Error(`apt-get installed "chromium", but ${DEBIAN_CHROMIUM} is still missing`);
	}
	return DEBIAN_CHROMIUM;
}

/**
 * Headless Chromium with a throwaway profile; `close()` ends it and removes the profile.
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function launchBrowser({ log } = {}) {
	const executablePath = ensureChromium({ log });
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath,
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: VIEWPORT,
		locale: 'en-US',
		timezoneId: 'UTC',
	});
	const close = async () => {
		await context.close().catch(() => {});
		fs.rmSync(profile, { recursive: true, force: true });
	};
	return { context, page: context.pages()[0] ?? (await context.newPage()), close };
}

/** Signs in on n8n's sign-in page, as a user does. */
export async function logIn(page, editorUrl, owner) {
	await page.goto(`${editorUrl}/signin`);
	await page.locator('input[name="emailOrLdapLoginId"]').fill(owner.email);
	await page.locator('input[name="password"]').fill(owner.password);
	await page.locator('[data-test-id="form-submit-button"]').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
	await page.waitForLoadState('networkidle');
}

/**
 * Closes whatever n8n may put over the editor: modals (what's new, surveys), info toasts, the
 * production checklist. An error toast fails the run.
 */
export async function clearOverlays(page) {
	const errors = page.locator('.el-notification--error:visible');
	if (await errors.count()) {
		const shown = await page.locator('.el-notification:visible').first().innerText();
		throw new Error(`n8n shows an error: ${shown.trim()}`);
	}
	const closers =
		'.el-dialog:visible .el-dialog__headerbtn, .el-notification:visible .el-notification__closeBtn, [data-test-id="suggested-actions-close"]:visible';
	for (const close of await page.locator(closers).all()) {
		await close.click().catch(() => {});
	}
	await page.mouse.move(VIEWPORT.width - 300, 150); // no hover effects or tooltips on what is shown
	await page.waitForTimeout(400);
}

export async function openWorkflow(page, url) {
	await page.goto(url);
	await page
		.locator('[data-test-id="canvas-node"], [data-test-id="canvas-add-button"]')
		.first()
		.waitFor();
	await page.waitForLoadState('networkidle');
	await clearOverlays(page);
}

export const canvasNode = (page, name) =>
	page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);

/** Opens a node's panel by double-clicking it on the canvas. */
export async function openNode(page, name) {
	await canvasNode(page, name).dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();
	await page.waitForLoadState('networkidle');
}

export async function closeNode(page) {
	// n8n 1.x calls it "back to canvas".
	await page
		.locator('[data-test-id="ndv-close-button"], [data-test-id="back-to-canvas"]')
		.first()
		.click();
	await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
}

/**
 * Runs a check and, when it fails, saves a screenshot of the page as `<folder>/<name>.jpg` and
 * names the file in the error.
 */
export async function withFailureScreenshot(page, folder, name, check) {
	try {
		return await check();
	} catch (error) {
		const file = path.join(folder, `${name.replace(/[^\w.-]+/g, '-').slice(0, 100)}.jpg`);
		try {
			fs.mkdirSync(folder, { recursive: true });
			await page.screenshot({ path: file, type: 'jpeg', quality: 70, fullPage: true });
			error.message = `${error.message}\n(screenshot of the page: ${file})`;
		} catch {
			// The browser may be gone: the error stands as it is.
		}
		throw error;
	}
}
