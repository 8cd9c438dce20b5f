// `gatehouse play <session>`: a session's recording (asciicast v2, GET /v1/sessions/{id}/recording)
// played in the terminal with its own timing, read as it downloads. `--speed` divides the pauses,
// `--max-idle` caps each one (as asciinema's idle_time_limit does); only what the session printed
// ("o") is written: typed input, when recorded, already shows in its echo.
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { type Command, InvalidArgumentError } from 'commander';
import { type CliContext, CliError, type Runner } from './context.js';

const nonNegative = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('a number of 0 or more');
  return n;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerPlayCommand(program: Command, run: Runner): void {
  program
    .command('play')
    .description("play a session's recording in the terminal, with its timing")
    .argument('<session>', 'the session (sess_…; gatehouse sessions ls)')
    .option('--speed <factor>', 'play faster (2) or slower (0.5); 0: no pauses at all', nonNegative, 1)
    .option('--max-idle <seconds>', 'no pause longer than this', nonNegative, 2)
    .action(
      run(async (ctx: CliContext, session: string, opts: { speed: number; maxIdle: number }) => {
        const { gh } = ctx.client();
        const response = await gh.fetch(`/v1/sessions/${encodeURIComponent(session)}/recording`);
        if (!response.body) throw new CliError('the recording is empty');
        const lines = createInterface({ input: Readable.fromWeb(response.body as never), crlfDelay: Infinity });
        let header = true;
        let last = 0;
        for await (const line of lines) {
          if (!line.trim()) continue;
          const parsed = JSON.parse(line) as unknown;
          if (header) {
            header = false;
            const limit = (parsed as { idle_time_limit?: number }).idle_time_limit;
            if (typeof limit === 'number' && limit > 0 && limit < opts.maxIdle) opts.maxIdle = limit;
            continue;
          }
          const [time, type, data] = parsed as [number, string, string];
          if (type !== 'o') continue;
          const pause = Math.min(time - last, opts.maxIdle);
          last = time;
          if (opts.speed > 0 && pause > 0) await sleep((pause * 1000) / opts.speed);
          ctx.out.stdout(data);
        }
      }),
    );
}
