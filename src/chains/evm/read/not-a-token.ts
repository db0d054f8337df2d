import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";

/**
 * The refusal of an address that holds no contract, or not a token of the kind asked for (`what`: "an ERC20"), in the
 * request's `field`. An address a launch answered holds nothing until the launch is mined, and never if it is cancelled
 * or fails: the message says so, the likeliest reasons for an empty address a caller was given.
 */
export function notAToken(contract: string, what: string, noCode: boolean, field = "contractAddress"): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.NOT_A_TOKEN_CONTRACT,
    noCode
      ? `no contract is deployed at ${contract} (a launch deploys it once mined; a cancelled or failed launch never does)`
      : `${contract} is not ${what} token contract`,
    { field, details: { contractAddress: contract } },
  );
}
