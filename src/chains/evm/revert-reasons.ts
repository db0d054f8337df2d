import { ErrorFragment, Interface, Result, isHexString, type InterfaceAbi } from "ethers";

import { serviceErc20Artifact, serviceErc721Artifact } from "./artifacts.js";

/**
 * The custom errors OpenZeppelin Contracts 5 defines in its standard interfaces and common modules (IERC6093's token
 * errors, access control, ownership, caps, pausing, reentrancy, SafeCast, SafeERC20, Address), copied from its
 * sources: a token the service did not launch raises these too. The shipped contracts' own ABIs are added below.
 */
const OPENZEPPELIN_ERRORS = [
  "error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)",
  "error AccessControlBadConfirmation()",
  "error OwnableUnauthorizedAccount(address account)",
  "error OwnableInvalidOwner(address owner)",
  "error AccessManagedUnauthorized(address caller)",
  "error AccessManagedRequiredDelay(address caller, uint32 delay)",
  "error AccessManagedInvalidAuthority(address authority)",
  "error AccessManagerNotScheduled(bytes32 operationId)",
  "error AccessManagerNotReady(bytes32 operationId)",
  "error AccessManagerExpired(bytes32 operationId)",
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InvalidSender(address sender)",
  "error ERC20InvalidReceiver(address receiver)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC20InvalidApprover(address approver)",
  "error ERC20InvalidSpender(address spender)",
  "error ERC20ExceededCap(uint256 increasedSupply, uint256 cap)",
  "error ERC20InvalidCap(uint256 cap)",
  "error ERC721InvalidOwner(address owner)",
  "error ERC721NonexistentToken(uint256 tokenId)",
  "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
  "error ERC721InvalidSender(address sender)",
  "error ERC721InvalidReceiver(address receiver)",
  "error ERC721InsufficientApproval(address operator, uint256 tokenId)",
  "error ERC721InvalidApprover(address approver)",
  "error ERC721InvalidOperator(address operator)",
  "error ERC721OutOfBoundsIndex(address owner, uint256 index)",
  "error ERC721EnumerableForbiddenBatchMint()",
  "error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)",
  "error ERC1155InvalidSender(address sender)",
  "error ERC1155InvalidReceiver(address receiver)",
  "error ERC1155MissingApprovalForAll(address operator, address owner)",
  "error ERC1155InvalidApprover(address approver)",
  "error ERC1155InvalidOperator(address operator)",
  "error ERC1155InvalidArrayLength(uint256 idsLength, uint256 valuesLength)",
  "error EnforcedPause()",
  "error ExpectedPause()",
  "error ReentrancyGuardReentrantCall()",
  "error SafeCastOverflowedUintDowncast(uint8 bits, uint256 value)",
  "error SafeCastOverflowedIntToUint(int256 value)",
  "error SafeCastOverflowedIntDowncast(uint8 bits, int256 value)",
  "error SafeCastOverflowedUintToInt(uint256 value)",
  "error SafeERC20FailedOperation(address token)",
  "error SafeERC20FailedDecreaseAllowance(address spender, uint256 currentAllowance, uint256 requestedDecrease)",
  "error AddressEmptyCode(address target)",
  "error FailedCall()",
  "error FailedDeployment()",
  "error InsufficientBalance(uint256 balance, uint256 needed)",
];

/**
 * The token variants' own error (scripts/token-variants.ts; their bundles are not read to decode a revert): an airdrop
 * given more or fewer values than recipients.
 */
const VARIANT_ERRORS = ["error AirdropInvalidArrayLength(uint256 recipients, uint256 values)"];

/** What the compiler's panic codes mean (Solidity's documentation, "Panic via assert and Error via require"). */
const PANIC_REASONS: Record<number, string> = {
  0x00: "generic compiler panic",
  0x01: "assertion failed",
  0x11: "arithmetic overflow or underflow",
  0x12: "division or modulo by zero",
  0x21: "conversion to an enum out of range",
  0x22: "incorrectly encoded storage byte array",
  0x31: "pop() on an empty array",
  0x32: "array index out of bounds",
  0x41: "too much memory allocated",
  0x51: "call to a zero-initialized function variable",
};

function errorsOf(abi: InterfaceAbi): string[] {
  return new Interface(abi).fragments.filter((fragment) => fragment instanceof ErrorFragment).map((fragment) => fragment.format("full"));
}

/** Every error the service can name, once each; Error(string) and Panic(uint256) are ethers' own. */
const knownErrors = new Interface([
  ...new Set([...errorsOf(serviceErc20Artifact.abi), ...errorsOf(serviceErc721Artifact.abi), ...OPENZEPPELIN_ERRORS, ...VARIANT_ERRORS]),
]);

/** A revert, decoded: the error's name and its arguments as strings by name, or null when the data names nothing known. */
export interface DecodedRevert {
  /** "ERC20ExceededCap", "Error" (a require message), "Panic"; null when the revert has no data or an unknown selector. */
  error: string | null;
  /** Its arguments by name (by position where unnamed), numbers as decimal strings, addresses checksummed. */
  args: Record<string, unknown>;
  /** The raw revert data (public: anyone can replay the call), kept when nothing decoded it. */
  data: string;
}

/** A decoded value as JSON can carry it: numbers as decimal strings, byte strings as hex, lists and structs nested. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Result) {
    const object = value.toObject(false);
    const keys = Object.keys(object);
    // A struct with named fields reads as an object, a list (or unnamed tuple) as an array.
    return keys.length > 0 && keys.every((key) => !/^\d+$/.test(key))
      ? Object.fromEntries(Object.entries(object).map(([key, entry]) => [key, plain(entry)]))
      : [...value].map(plain);
  }
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/** Names a revert from its data, with every error the shipped contracts and OpenZeppelin's standard ones define. */
export function decodeRevert(data: string): DecodedRevert {
  if (!isHexString(data) || data.length < 10) return { error: null, args: {}, data };
  let parsed;
  try {
    parsed = knownErrors.parseError(data);
  } catch {
    return { error: null, args: {}, data };
  }
  if (parsed === null) return { error: null, args: {}, data };
  if (parsed.name === "Error") return { error: "Error", args: { reason: String(parsed.args[0]) }, data };
  if (parsed.name === "Panic") {
    const code = Number(parsed.args[0] as bigint);
    return {
      error: "Panic",
      args: { code: `0x${code.toString(16).padStart(2, "0")}`, reason: PANIC_REASONS[code] ?? "unknown panic code" },
      data,
    };
  }
  const args = Object.fromEntries(parsed.fragment.inputs.map((input, index) => [input.name || String(index), plain(parsed.args[index])]));
  return { error: parsed.name, args, data };
}

/** "ERC20ExceededCap(increasedSupply: 11, cap: 10)", "Error(\"not allowed\")", or "no reason". */
export function describeRevert(revert: DecodedRevert): string {
  if (revert.error === null)
    return revert.data.length >= 10 ? `an error the service does not know (selector ${revert.data.slice(0, 10)})` : "no reason";
  if (revert.error === "Error") return `Error(${JSON.stringify(revert.args.reason)})`;
  if (revert.error === "Panic") return `Panic(${String(revert.args.code)}: ${String(revert.args.reason)})`;
  const args = Object.entries(revert.args).map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  return `${revert.error}(${args.join(", ")})`;
}

/** The revert data an ethers CALL_EXCEPTION carries, when the node sent any (`0x` for a revert without a reason). */
export function revertDataOf(error: unknown): string | undefined {
  const data = (error as { data?: unknown })?.data;
  return typeof data === "string" && isHexString(data) ? data : undefined;
}
