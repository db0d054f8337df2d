import { EnvironmentError, readFamilyVariable, readVariable } from "../../config/environment.js";
import { blockscoutVariable } from "../../config/variable-families.js";
import type { NetworkInfo } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { ETHERSCAN_API_URL, EtherscanCompatibleClient, blockscoutClient } from "../../chains/evm/verification/etherscan-api.js";
import { EXPLORERS, type ExplorerClient, type ExplorerName } from "../../chains/evm/verification/explorer-client.js";
import { SOURCIFY_API_URL, SourcifyClient } from "../../chains/evm/verification/sourcify-api.js";

// Which explorers a pair can be verified on, from the environment (docs/reference/configuration.md): Etherscan with
// its key (one for every chain), Sourcify at its URL, Blockscout at the pair's instance.

/** How long one request to an explorer may take (a standard JSON input is a few hundred KB). */
const EXPLORER_REQUEST_TIMEOUT_MS = 30_000;

export function parseExplorer(value: unknown): ExplorerName {
  if (typeof value !== "string" || !(EXPLORERS as readonly string[]).includes(value)) {
    throw invalidArgument("explorer", `explorer must be one of ${EXPLORERS.join(", ")}`);
  }
  return value as ExplorerName;
}

function notConfigured(explorer: ExplorerName, variable: string, message: string): TokenServiceError {
  return new TokenServiceError(ErrorCode.EXPLORER_NOT_CONFIGURED, message, { field: "explorer", details: { explorer, variable } });
}

/** The explorer's client for the pair, or EXPLORER_NOT_CONFIGURED naming the variable to set. */
export function explorerClient(explorer: ExplorerName, info: NetworkInfo, env: NodeJS.ProcessEnv): ExplorerClient {
  const read = <T>(variable: string, value: () => T): T => {
    try {
      return value();
    } catch (error) {
      if (error instanceof EnvironmentError) throw notConfigured(explorer, variable, error.message);
      throw error;
    }
  };
  const timeoutMs = EXPLORER_REQUEST_TIMEOUT_MS;
  if (explorer === "etherscan") {
    const apiKey = read("TOKEN_SERVICE_ETHERSCAN_API_KEY", () => readVariable(env, "TOKEN_SERVICE_ETHERSCAN_API_KEY"));
    if (apiKey === undefined) {
      throw notConfigured(
        explorer,
        "TOKEN_SERVICE_ETHERSCAN_API_KEY",
        "verification on Etherscan needs an API key: set TOKEN_SERVICE_ETHERSCAN_API_KEY (one key of Etherscan's API v2 serves every chain)",
      );
    }
    const apiUrl = read("TOKEN_SERVICE_ETHERSCAN_API_URL", () => readVariable(env, "TOKEN_SERVICE_ETHERSCAN_API_URL")) ?? ETHERSCAN_API_URL;
    return new EtherscanCompatibleClient({ name: "etherscan", apiUrl, apiKey, timeoutMs });
  }
  if (explorer === "sourcify") {
    const apiUrl = read("TOKEN_SERVICE_SOURCIFY_API_URL", () => readVariable(env, "TOKEN_SERVICE_SOURCIFY_API_URL")) ?? SOURCIFY_API_URL;
    return new SourcifyClient(apiUrl, timeoutMs);
  }
  const variable = blockscoutVariable(info.chain, info.network);
  const instance = read(variable, () => readFamilyVariable(env, "blockscout", variable));
  if (instance === undefined) {
    throw notConfigured(
      explorer,
      variable,
      `no Blockscout instance is configured for ${info.chain}/${info.network}: set ${variable} to its URL (e.g. https://eth-sepolia.blockscout.com)`,
    );
  }
  return blockscoutClient(instance, timeoutMs);
}
