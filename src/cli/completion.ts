// `gatehouse completion bash|zsh|fish`: a completion script written from the program's own commander
// tree (commands, subcommands, options), so it can never list a command that is not there.
// bash: `source <(gatehouse completion bash)`; zsh runs the same through bashcompinit; fish gets
// `complete` lines.
import { Argument, type Command } from 'commander';
import type { CliContext, Runner } from './context.js';

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
}

function walk(cmd: Command, path: string[] = []): Node[] {
  const options = [...cmd.options.map((o) => o.long ?? o.short ?? ''), '--help'].filter(Boolean);
  const subs = cmd.commands.filter((c) => c.name() !== 'help');
  return [
    { path, subcommands: subs.map((c) => c.name()), options },
    ...subs.flatMap((c) => walk(c, [...path, c.name()])),
  ];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(nodes: Node[], globals: string[]): string {
  // Deepest paths first: `db connect pg --d` is under "db connect", not "db".
  const cases = [...nodes]
    .filter((n) => n.path.length > 0)
    .sort((a, b) => b.path.length - a.path.length)
    .map((n) => {
      const p = n.path.join(' ');
      return `    ${quote(p)}|${quote(p)}' '*) words=${quote([...n.subcommands, ...n.options].join(' '))} ;;`;
    });
  const top = nodes.find((n) => n.path.length === 0) as Node;
  return [
    '# gatehouse completion for bash (and zsh through bashcompinit): source <(gatehouse completion bash)',
    '_gatehouse() {',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not JavaScript's
    '  local cur=${COMP_WORDS[COMP_CWORD]} path="" words="" i w',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not JavaScript's
    '    w=${COMP_WORDS[i]}',
    '    case "$w" in',
    '      --profile|--format) ((i++)); continue ;;',
    '      -*) continue ;;',
    '    esac',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not JavaScript's
    '    path="${path:+$path }$w"',
    '  done',
    '  case "$path" in',
    ...cases,
    `    '') words=${quote([...top.subcommands, ...top.options].join(' '))} ;;`,
    '  esac',
    `  [[ $cur == -* && -n $path ]] && words="$words ${globals.join(' ')}"`,
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '}',
    'complete -o default -F _gatehouse gatehouse',
    '',
  ].join('\n');
}

function fish(nodes: Node[]): string {
  const lines = ['# gatehouse completion for fish: gatehouse completion fish | source', 'complete -c gatehouse -f'];
  for (const n of nodes) {
    const condition =
      n.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}${n.path.length > 1 ? `; and __fish_seen_subcommand_from ${n.path[0]}` : ''}`;
    if (n.subcommands.length)
      lines.push(`complete -c gatehouse -n ${quote(condition)} -a ${quote(n.subcommands.join(' '))}`);
    for (const o of n.options)
      if (o.startsWith('--')) lines.push(`complete -c gatehouse -n ${quote(condition)} -l ${o.slice(2)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function registerCompletionCommand(program: Command, run: Runner): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(gatehouse completion bash)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action(
      run(async (ctx: CliContext, shell: 'bash' | 'zsh' | 'fish') => {
        const nodes = walk(program);
        const globals = ['--profile', '--format'];
        if (shell === 'fish') return ctx.out.stdout(fish(nodes));
        const script = bash(nodes, globals);
        ctx.out.stdout(shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${script}` : script);
      }),
    );
}
