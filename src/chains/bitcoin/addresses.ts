import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { bitcoinLibraries } from "./libraries.js";
import { bitcoinjsNetwork } from "./networks.js";

/** Validates a Bitcoin address for one network: a tb1 address is refused on mainnet and regtest. */
export function parseBitcoinAddress(value: unknown, network: string, field: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TokenServiceError(ErrorCode.INVALID_ADDRESS, `${field} is required: a bitcoin ${network} address`, { field });
  }
  try {
    bitcoinLibraries().lib.address.toOutputScript(value, bitcoinjsNetwork(network));
    return value;
  } catch {
    throw new TokenServiceError(ErrorCode.INVALID_ADDRESS, `${field} is not a valid bitcoin ${network} address`, { field });
  }
}
