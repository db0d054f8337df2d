/** Runs `work` while collecting what it prints with console.log / console.error (nothing reaches the terminal). */
export async function captureOutput(work: () => Promise<unknown>): Promise<{ stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...args: unknown[]) => void out.push(args.map(String).join(" "));
  console.error = (...args: unknown[]) => void err.push(args.map(String).join(" "));
  try {
    await work();
  } finally {
    console.log = log;
    console.error = error;
  }
  return { stdout: out.join("\n"), stderr: err.join("\n") };
}
