#!/usr/bin/env node
// `npm run check:workflows`: parses and validates the GitHub Actions workflows with GitHub's own
// workflow parser (@actions/workflow-parser, the one behind the Actions language service): the schema,
// expressions and contexts, as GitHub reads them. Exit 1 with every error found.
//
//   node scripts/check-workflows.mjs [file.yml ...]   default: every .github/workflows/*.yml
//   node scripts/check-workflows.mjs --json [files]   print each workflow as GitHub parsed it, as JSON (tests)

import fs from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

register('./lib/json-import-hook.mjs', import.meta.url);
const parser = await import('@actions/workflow-parser');
const { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } = parser;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');

/** A parsed token as plain data; an expression stays as its source, `${{ ... }}`. */
function plain(token) {
	if (parser.isMapping(token)) {
		const object = {};
		for (let i = 0; i < token.count; i++) {
			const { key, value } = token.get(i);
			object[key.toDisplayString()] = plain(value);
		}
		return object;
	}
	if (parser.isSequence(token)) {
		return Array.from({ length: token.count }, (_, i) => plain(token.get(i)));
	}
	if (parser.isBasicExpression(token)) return token.source ?? token.toDisplayString();
	return token.value ?? null;
}

/** The workflow as GitHub would run it, or the errors that would stop GitHub from running it. */
async function checkWorkflow(file) {
	const content = fs.readFileSync(file, 'utf8');
	const name = path.relative(process.cwd(), file);
	const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
	const errors = parsed.context.errors.getErrors().map((error) => error.message);
	if (errors.length > 0 || parsed.value === undefined) return { name, errors };
	const template = await convertWorkflowTemplate(parsed.context, parsed.value);
	const errorsOfModel = (template.errors ?? []).map((error) => error.Message);
	return {
		name,
		errors: errorsOfModel,
		jobs: template.jobs?.length,
		workflow: plain(parsed.value),
	};
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const given = args.filter((arg) => arg !== '--json');
const files =
	given.length > 0
		? given.map((file) => path.resolve(file))
		: fs
				.readdirSync(WORKFLOWS)
				.filter((file) => /\.ya?ml$/.test(file))
				.sort()
				.map((file) => path.join(WORKFLOWS, file));

let failed = files.length === 0;
if (failed) console.error(`check-workflows: no workflow files in ${WORKFLOWS}`);
const parsed = {};
for (const file of files) {
	const result = await checkWorkflow(file);
	if (result.errors.length > 0) {
		failed = true;
		console.error(`check-workflows: ${result.name} is not a valid GitHub Actions workflow:`);
		for (const error of result.errors) console.error(`  ${error}`);
	} else if (!json) {
		console.log(`check-workflows: ${result.name} ok (${result.jobs} jobs)`);
	}
	parsed[path.basename(file)] = result.workflow;
}
if (json) console.log(JSON.stringify(parsed));
process.exitCode = failed ? 1 : 0;
