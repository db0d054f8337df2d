import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's chromium: playwright-core drives it, no browser build is downloaded. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

const INSTALL_HINT = "install Debian's chromium with `apt-get install -y chromium` (.ci/run does so under CI)";

/**
 * The reason the browser tests cannot run here, or undefined when they can. Under CI=true a missing browser is a
 * failure, not a skip.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `${CHROMIUM_PATH} is missing: ${INSTALL_HINT}`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI=true requires the browser tests to run`);
  return reason;
}

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless chromium on a fresh profile, with every background service that could reach out switched off. */
export async function launchChromium(): Promise<HeadlessChromium> {
  const userDataDir = await mkdtemp(path.join(tmpdir(), "hts-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    return {
      context,
      async close() {
        await context.close();
        await rm(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
}
