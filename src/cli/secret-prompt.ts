// Reads a secret without echoing it: on a terminal, in raw mode (nothing is written back as it is
// typed); from a pipe, the first line. Ctrl-C or Ctrl-D on the terminal gives up.
import type { Output } from './output.js';

export async function readSecret(
  prompt: string,
  out: Output,
  input: NodeJS.ReadStream = process.stdin,
): Promise<string> {
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) {
      text += chunk;
      if (text.includes('\n')) break;
    }
    return (text.split('\n')[0] ?? '').trim();
  }
  out.stderr(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n') return done(() => resolve(value.trim()));
          if (ch === '\u0003' || ch === '\u0004') return done(() => reject(new Error('cancelled')));
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      const done = (then: () => void) => {
        input.off('data', onData);
        out.stderr('\n');
        then();
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
  }
}
