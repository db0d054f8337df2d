import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";

/** The refusal of an address that holds no contract, or not a token of the kind asked for. */
export function notAToken(contract: string, what: string, noCode: boolean): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.NOT_A_TOKEN_CONTRACT,
    noCode
      ? `no contract is deployed at ${contract} (if it was just launched, wait for the launch transaction to be mined)`
      : `${contract} is not ${what} token contract`,
    { field: "contractAddress", details: { contractAddress: contract } },
  );
}
