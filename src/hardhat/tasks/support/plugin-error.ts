import { HardhatPluginError } from "hardhat/plugins";

/** The plugin's id, as Hardhat prints it before a plugin error's message. */
export const PLUGIN_ID = "hardhat-token-service";

/**
 * A user's mistake (or a refusal the user can act on), as Hardhat shows a plugin's errors: the message alone, without
 * "An unexpected error occurred" and without a stack trace (unless --show-stack-traces).
 */
export function pluginError(message: string, cause?: Error): HardhatPluginError {
  return new HardhatPluginError(PLUGIN_ID, message, cause);
}
