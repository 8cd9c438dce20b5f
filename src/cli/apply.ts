// `gatehouse apply -f file.yaml` and `gatehouse get <kind> [name]`: roles, users, resources, single
// sign-on connectors, agents and webhooks as YAML documents `{kind, name, spec}` (manifest-kinds.ts). apply reads
// every document first (a bad one applies nothing), then creates or changes each in order, saying
// created / updated / unchanged, and stops at the first the server refuses. What get prints applies
// back unchanged; secrets are never in it.
//
// Each object is read with its ETag and changed with If-Match (manifest-kinds.ts): when someone else
// changes it between apply's read and its write, the server refuses the write (412) and apply says so
// for that object and stops, rather than overwriting their change. --dry-run reads and shows what
// would change (manifest-diff.ts), and writes nothing.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseAllDocuments, stringify } from 'yaml';
import { GatehouseProblem } from '../sdk/index.js';
import { type CliContext, CliError, failure, type Runner } from './context.js';
import { FORMATS } from './format.js';
import { changesOf } from './manifest-diff.js';
import { KINDS, type Kind, kindNamed, type Spec, specOf, unchanged } from './manifest-kinds.js';

interface Doc {
  kind: Kind;
  name: string;
  spec: Spec;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every document of the file, checked: kind, name, spec and nothing else. */
export function readDocuments(text: string, file: string): Doc[] {
  const docs: Doc[] = [];
  let n = 0;
  for (const parsed of parseAllDocuments(text)) {
    n++;
    const where = `${file}: document ${n}`;
    if (parsed.errors.length > 0) throw new CliError(`${where}: ${parsed.errors[0]?.message.split('\n')[0]}`);
    const value = parsed.toJS() as unknown;
    if (value === null || value === undefined) continue; // an empty document (a trailing ---)
    // A list of documents (what `get -o json` prints for a kind) counts as several.
    for (const raw of Array.isArray(value) ? value : [value]) {
      if (!isMap(raw)) throw new CliError(`${where}: expected a mapping with kind, name and spec`);
      const extra = Object.keys(raw).filter((k) => !['kind', 'name', 'spec'].includes(k));
      if (extra.length > 0) throw new CliError(`${where}: unknown field ${extra[0]} (a document has kind, name, spec)`);
      if (typeof raw.kind !== 'string')
        throw new CliError(`${where}: kind is required (${KINDS.map((k) => k.kind).join(', ')})`);
      if (typeof raw.name !== 'string' || raw.name === '') throw new CliError(`${where}: name is required`);
      if (raw.spec !== undefined && !isMap(raw.spec)) throw new CliError(`${where}: spec must be a mapping`);
      let kind: Kind;
      try {
        kind = kindNamed(raw.kind);
      } catch (e) {
        throw new CliError(`${where}: ${(e as Error).message}`);
      }
      const spec = (raw.spec ?? {}) as Spec;
      const readOnly = Object.keys(spec).find((k) => kind.readOnly.includes(k) && !kind.writeOnly.includes(k));
      if (readOnly)
        throw new CliError(`${where}: ${kind.kind} ${raw.name}: ${readOnly} is set by Gatehouse, not by a document`);
      docs.push({ kind, name: raw.name, spec });
    }
  }
  return docs;
}

type Outcome = 'created' | 'updated' | 'unchanged';

/** What the server says when the object changed between apply's read and its write (If-Match). */
export const CHANGED_SINCE_READ = 'changed by someone else since it was read; run apply again';

interface Applied {
  result: Outcome;
  changes?: string[];
  /** A created webhook's signing secret: the server answers it this once. */
  secret?: string;
}

/** Applies one document (or, dry, only reads it): its outcome, and for an update what changes. */
async function applyOne(ctx: CliContext, doc: Doc, dry: boolean): Promise<Applied> {
  const { gh } = ctx.client();
  const found = await doc.kind.find(gh, doc.name, doc.spec);
  if (found.length > 1) throw new CliError(`several ${doc.kind.kind}s are named ${doc.name}: give spec.kind`);
  const current = found[0];
  if (!current) {
    if (dry) return { result: 'created' };
    const made = (await doc.kind.create(gh, doc.name, doc.spec)) as { secret?: unknown };
    return { result: 'created', ...(typeof made?.secret === 'string' && { secret: made.secret }) };
  }
  const spec = specOf(doc.kind, current.obj);
  if (unchanged(doc.kind, doc.spec, spec)) return { result: 'unchanged' };
  if (dry) return { result: 'updated', changes: changesOf(doc.kind, doc.spec, spec) };
  await doc.kind.update(gh, current, doc.name, doc.spec);
  return { result: 'updated' };
}

/** The documents of one kind as get prints them: by name, or every one the caller may list. */
async function documentsOf(ctx: CliContext, kind: Kind, name: string | undefined) {
  const { gh } = ctx.client();
  const objects: Record<string, unknown>[] = [];
  if (name !== undefined) {
    objects.push(...(await kind.find(gh, name)).map((f) => f.obj));
    if (objects.length === 0) throw new CliError(`not_found: there is no ${kind.kind} named ${name} you may see`);
  } else {
    for await (const item of gh.list(kind.listPath)) objects.push(item as Record<string, unknown>);
  }
  return objects.map((o) => ({ kind: kind.kind, name: String(o.name), spec: specOf(kind, o) }));
}

export function registerApplyCommands(program: Command, run: Runner): void {
  program
    .command('apply')
    .description('create or change roles, users, resources, connectors, agents and webhooks from YAML documents')
    .requiredOption('-f, --file <file>', 'the YAML file (several documents separated by ---; - reads stdin)')
    .option('--dry-run', 'show what each document would create or change (a diff; secrets masked), write nothing')
    .action(
      run(async (ctx: CliContext, opts: { file: string; dryRun?: boolean }) => {
        const dry = opts.dryRun === true;
        let text: string;
        try {
          text = readFileSync(opts.file === '-' ? 0 : opts.file, 'utf8');
        } catch (e) {
          throw new CliError(
            `-f: cannot read ${opts.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          );
        }
        const docs = readDocuments(text, opts.file);
        const results: ({ kind: string; name: string; dry_run?: true } & Applied)[] = [];
        const table = ctx.print.format === 'table';
        try {
          for (const doc of docs) {
            let outcome: Applied;
            try {
              outcome = await applyOne(ctx, doc, dry);
            } catch (e) {
              const stale = e instanceof GatehouseProblem && e.status === 412;
              throw new CliError(`${doc.kind.kind}/${doc.name}: ${stale ? CHANGED_SINCE_READ : failure(e).line}`);
            }
            results.push({ kind: doc.kind.kind, name: doc.name, ...outcome, ...(dry && { dry_run: true }) });
            if (table) {
              const lines = [
                ...(outcome.changes ?? []),
                ...(outcome.secret ? [`signing secret (shown this once: keep it now): ${outcome.secret}`] : []),
              ]
                .map((c) => `  ${c}\n`)
                .join('');
              ctx.out.stdout(`${doc.kind.kind}/${doc.name} ${outcome.result}${dry ? ' (dry run)' : ''}\n${lines}`);
            }
          }
        } finally {
          if (!table) ctx.print.list(results, []);
        }
        if (dry && table) ctx.out.stdout('dry run: nothing was written\n');
      }),
    );

  program
    .command('get')
    .description(
      'print roles, users, resources, connectors, agents or webhooks as documents apply takes back (no secrets)',
    )
    .argument('<kind>', KINDS.map((k) => k.kind).join(' | '))
    .argument('[name]', 'one by name (default: every one you may list)')
    .option('-o, --format <format>', `output: ${FORMATS.join(', ')} (yaml applies back)`)
    .action(
      run(async (ctx: CliContext, kindName: string, name: string | undefined) => {
        const kind = kindNamed(kindName);
        const docs = await documentsOf(ctx, kind, name);
        if (ctx.print.format === 'yaml') {
          ctx.out.stdout(docs.map((d) => stringify(d)).join('---\n'));
        } else if (ctx.print.format === 'json' && name !== undefined && docs.length === 1) {
          ctx.print.item(docs[0] as Record<string, unknown>);
        } else {
          ctx.print.list(docs, [
            { header: 'kind', value: (d) => d.kind },
            { header: 'name', value: (d) => d.name },
            { header: 'details', value: (d) => kind.summary(d.spec) },
          ]);
        }
      }),
    );
}
