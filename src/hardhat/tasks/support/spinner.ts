const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Shows `text` with a spinner on stderr while `work` runs; silent when stderr is not a terminal. */
export async function withSpinner<T>(text: string, work: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work();
  let frame = 0;
  const timer = setInterval(() => process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}`), 80);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    process.stderr.write(`\r${" ".repeat(text.length + 2)}\r`);
  }
}
