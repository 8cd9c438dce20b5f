// The --help of every client command, against a snapshot (test/cli-help.snapshot.txt): a changed
// flag or description shows up in review. GATEHOUSE_UPDATE_SNAPSHOTS=1 rewrites the snapshot.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram, runCli } from '../src/cli/program.js';

const SNAPSHOT = new URL('./cli-help.snapshot.txt', import.meta.url);
const DOC = new URL('../docs/cli.md', import.meta.url);
const START = '<!-- commands:start (written by test/cli-help.test.ts from the program; do not edit by hand) -->';
const END = '<!-- commands:end -->';
const SERVER_COMMANDS = new Set(['start', 'admin', 'backend', 'help']);

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands
    .filter((c) => !(prefix.length === 0 && SERVER_COMMANDS.has(c.name())))
    .flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

async function help(path: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const add = (s: string) => {
    text += s;
  };
  const out = { stdout: add, stderr: add };
  const code = await runCli([...path, '--help'], { env: {}, out });
  return { code, text };
}

test('the --help of every command matches the snapshot, and exits 0', async () => {
  const program = buildProgram({ env: {}, out: { stdout: () => {}, stderr: () => {} } }, () => {});
  const paths = [[], ...commandPaths(program)];
  assert.ok(paths.length >= 15, `${paths.length} commands`);
  let snapshot = '';
  for (const path of paths) {
    const { code, text } = await help(path);
    assert.equal(code, 0, path.join(' '));
    snapshot += `=== gatehouse ${[...path, '--help'].join(' ')}\n${text}\n`;
  }
  if (process.env.GATEHOUSE_UPDATE_SNAPSHOTS === '1') writeFileSync(SNAPSHOT, snapshot);
  assert.ok(existsSync(SNAPSHOT), 'no snapshot: run with GATEHOUSE_UPDATE_SNAPSHOTS=1 once');
  assert.equal(
    snapshot,
    readFileSync(SNAPSHOT, 'utf8'),
    'run with GATEHOUSE_UPDATE_SNAPSHOTS=1 after a deliberate change',
  );
});

/** One row per client command: its usage and description, as commander has them. */
function reference(program: Command): string {
  const rows: string[] = ['| Command | What it does |', '|---|---|'];
  const visit = (cmd: Command, prefix: string[]) => {
    for (const c of cmd.commands) {
      if (prefix.length === 0 && SERVER_COMMANDS.has(c.name())) continue;
      const path = [...prefix, c.name()];
      if (c.commands.length === 0) {
        const usage = `gatehouse ${path.join(' ')} ${c.usage()}`.replace(/ \[options\]/, '').trim();
        const options = c.options.map((o) => o.flags).join(', ');
        const cell = (t: string) => t.replace(/\|/g, '\\|');
        rows.push(`| \`${cell(usage)}\`${options ? `<br>\`${cell(options)}\`` : ''} | ${cell(c.description())} |`);
      }
      visit(c, path);
    }
  };
  visit(program, []);
  return rows.join('\n');
}

test('docs/cli.md has the command reference of the program as it is', () => {
  const program = buildProgram({ env: {}, out: { stdout: () => {}, stderr: () => {} } }, () => {});
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  assert.ok(start >= 0 && end > start, 'docs/cli.md lost its command reference markers');
  const written = `${doc.slice(0, start + START.length)}\n${reference(program)}\n${doc.slice(end)}`;
  if (process.env.GATEHOUSE_UPDATE_SNAPSHOTS === '1') writeFileSync(DOC, written);
  assert.equal(readFileSync(DOC, 'utf8'), written, 'run with GATEHOUSE_UPDATE_SNAPSHOTS=1 after changing a command');
});
