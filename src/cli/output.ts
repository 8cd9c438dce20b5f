// Where a command's text goes: the process's streams, or a test's buffers.
export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processOutput: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};
