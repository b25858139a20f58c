/** Where a command writes: injectable so tests run commands in-process and read what they said. */
export interface CommandIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export const processCommandIo: CommandIo = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};
