import { styleText } from "node:util";

import { HardhatPluginError } from "hardhat/plugins";
import { errorResult } from "hardhat/utils/result";

/** The plugin's id, as Hardhat prints it before a plugin error's message. */
export const PLUGIN_ID = "hardhat-token-service";

/**
 * A user's mistake (or a refusal the user can act on). The task's action turns it into a failed Result (see
 * `refusalResult`); a caller of `pluginError` only throws it.
 */
export function pluginError(message: string, cause?: Error): HardhatPluginError {
  return new HardhatPluginError(PLUGIN_ID, message, cause);
}

/**
 * This plugin's refusal as a task's failed Result, its message printed on stderr; undefined for any other error.
 *
 * Hardhat's CLI prints every thrown error with a footer ("For more info run Hardhat with --show-stack-traces", or the
 * HHE page for a HardhatError with a plugin descriptor): right for a bug, noise after "--amount must be a decimal".
 * A task that returns a failed Result instead (the documented way for an action to fail, as `hardhat test` does) gets
 * exit code 1 and nothing printed by Hardhat. The first line is Hardhat's own for a plugin error, so a refusal reads the
 * same as before, only without the footer; anything else (a bug) is still thrown, and shown with its stack.
 */
export function refusalResult(error: unknown): { success: false; error: HardhatPluginError } | undefined {
  if (!HardhatPluginError.isHardhatPluginError(error) || error.pluginId !== PLUGIN_ID) return undefined;
  const heading = styleText(["red", "bold"], `Error in community plugin ${PLUGIN_ID}:`, { stream: process.stderr });
  console.error(`${heading} ${error.message}`);
  return errorResult(error);
}
