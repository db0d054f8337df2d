import { z } from "zod/v4";

import { ENDPOINT_STATES, type EndpointState } from "../chains/evm/endpoint-pool.js";
import { BUILT_IN_CHAINS } from "../domain/chains.js";
import { OPERATION_KINDS, OPERATION_STATUSES, TRANSACTION_ROLES } from "../domain/lifecycle.js";
import { MAX_MINT_RECIPIENTS } from "../domain/mint-commands.js";
import { chainFieldDescription, networkFieldDescription } from "./chain-fields.js";
import {
  CHAIN_FAULT_KINDS,
  MAX_FAULT_BLOCKS,
  MAX_FAULT_SECONDS,
  MAX_FEE_MULTIPLIER,
  MAX_REORG_BLOCKS,
  RPC_ERROR_KINDS,
} from "../domain/faults.js";
import { WEBHOOK_EVENTS } from "../webhooks/events.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_SALT, EXAMPLE_TOKEN_CONTRACT, EXAMPLE_TRANSACTION_HASH, ONE_TOKEN } from "./examples.js";

/**
 * The request and response shapes of the HTTP API. The same schemas validate
 * requests and generate /openapi.json. They check shape only; meaning (is this
 * a valid address on that network, does the key derive the sender) is the core's job.
 */

export const integerString = (description: string, example = ONE_TOKEN) =>
  z
    .string()
    .regex(/^\d+$/, "must be a decimal string of a non-negative integer (smallest units)")
    .describe(description)
    .meta({ examples: [example] });

// Strings, not enums: a service also serves the chains its configuration declares, and its core says which it knows
// (UNSUPPORTED_CHAIN lists them). The document a service serves lists its own chains (src/http/openapi.ts).
export const CHAIN_DESCRIPTION = chainFieldDescription(BUILT_IN_CHAINS, true);
export const NETWORK_DESCRIPTION = networkFieldDescription(BUILT_IN_CHAINS);
export const chain = z
  .string()
  .describe(CHAIN_DESCRIPTION)
  .meta({ examples: ["ethereum"] });
export const network = z
  .string()
  .describe(NETWORK_DESCRIPTION)
  .meta({ examples: ["sepolia"] });
export const address = z
  .string()
  .describe("An address on the chain and network")
  .meta({ examples: [EXAMPLE_ACCOUNT.address] });
/** An address in an answer. */
export const shownAddress = z.string().meta({ examples: [EXAMPLE_ACCOUNT.address] });
export const transactionHash = z.string().meta({ examples: [EXAMPLE_TRANSACTION_HASH] });
const contractAddress = z.string().meta({ examples: [EXAMPLE_TOKEN_CONTRACT] });
const amount = z.object({ balance: integerString("Smallest units"), uiBalance: z.string().describe("Exact decimal in whole units") });

export const CreateWalletBody = z.strictObject({
  chain,
  network,
  addressType: z.enum(["p2wpkh", "p2tr", "p2pkh"]).optional().describe("Bitcoin only; default p2wpkh (native SegWit)"),
  custody: z
    .enum(["caller", "service"])
    .optional()
    .describe(
      "caller (default): the answer holds the new key, stored nowhere. service: a held wallet (EVM chains), its key kept encrypted in the service's keystore and never shown; writes from it need no key (201)",
    ),
});

export const Wallet = z.object({
  address: shownAddress,
  privateKey: z
    .string()
    .describe("Shown once, stored nowhere. 0x-prefixed hex (EVM) or WIF (Bitcoin)")
    .meta({ examples: [EXAMPLE_ACCOUNT.privateKey] }),
  chain: z.string(),
  network: z.string(),
  addressType: z.string().optional(),
});

export const BalanceQuery = z.object({
  chain,
  network,
  address,
  erc20TokenContractAddresses: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe("ERC20 contracts: comma-separated and/or repeated, at most 50"),
});

/** A native balance; Bitcoin's also splits it into confirmed and unconfirmed (mempool). */
const nativeAmount = amount.extend({ confirmed: amount.optional(), unconfirmed: amount.optional() });

export const BalanceEntry = nativeAmount.extend({
  contractAddress: z.string().optional(),
  decimals: z.number().int().nonnegative().optional(),
  symbol: z.string().optional(),
});

export const Balances = z.object({
  chain: z.string(),
  network: z.string(),
  address: z.string(),
  simulated: z.boolean(),
  balances: z
    .record(z.string(), BalanceEntry)
    .describe("Keyed by symbol (ETH, BNB, BTC, token symbols); a token whose symbol is taken is keyed by its contract address"),
});

const option = (description: string) => z.boolean().optional().describe(description);
const access = z
  .enum(["ownable", "roles"])
  .optional()
  .describe(
    "Who may call the restricted functions (mint, pause): `ownable`, one owner (OpenZeppelin's Ownable); `roles`, role holders (AccessControl: MINTER_ROLE, PAUSER_ROLE, and DEFAULT_ADMIN_ROLE who grants them). Default roles",
  );
const royalty = z
  .strictObject({
    receiver: address.describe("Who receives the royalty"),
    basisPoints: z.number().int().min(0).max(10_000).describe("Out of 10 000: 250 = 2.5 % of the sale price"),
  })
  .optional()
  .describe("ERC-2981 royalty info (OpenZeppelin's ERC2981) for every token of the collection, set at launch");

export const Erc20Options = z
  .strictObject({
    burnable: option("ERC20Burnable: holders can burn (and burnFrom with an allowance)"),
    pausable: option("ERC20Pausable: pause()/unpause() stop and restart every transfer, mint and burn"),
    permit: option("ERC20Permit (EIP-2612): approvals by signature (permit, nonces, DOMAIN_SEPARATOR)"),
    capped: option("ERC20Capped: no mint past `token.totalSupply`, which it requires"),
    mintable: option("mint(to, amount) for the minter (MINTER_ROLE or the owner)"),
    votes: option("ERC20Votes: delegation and vote checkpoints (delegate, getVotes, getPastVotes)"),
    access,
  })
  .describe(
    "Each option adds one OpenZeppelin extension; without it the token does not have it. Without `options` at all, the launch deploys the historic ServiceERC20 (capped at totalSupply or uncapped, mintable, roles), as before options existed",
  )
  .meta({ examples: [{ burnable: true, permit: true, mintable: true, access: "ownable" }] });

export const Erc721Options = z
  .strictObject({
    burnable: option("ERC721Burnable: owners and approved operators can burn"),
    pausable: option("ERC721Pausable: pause()/unpause() stop and restart every transfer, mint and burn"),
    enumerable: option("ERC721Enumerable: totalSupply, tokenByIndex, tokenOfOwnerByIndex (balance reads then list token ids)"),
    uriStorage: option("ERC721URIStorage: a URI per token, given at mint (appended to the base `uri` when there is one)"),
    royalty,
    access,
  })
  .describe(
    "Each option adds one OpenZeppelin extension; without it the token does not have it. Without `options` at all, the launch deploys the historic ServiceERC721 (enumerable, own URIs, roles)",
  )
  .meta({ examples: [{ enumerable: true, royalty: { receiver: EXAMPLE_ACCOUNT.address, basisPoints: 250 } }] });

export const Erc1155Options = z
  .strictObject({
    burnable: option("ERC1155Burnable: holders and approved operators can burn"),
    pausable: option("ERC1155Pausable: pause()/unpause() stop and restart every transfer, mint and burn"),
    supply: option("ERC1155Supply: totalSupply(id), totalSupply() and exists(id)"),
    royalty,
    access,
  })
  .describe("Each option adds one OpenZeppelin extension; without it the collection does not have it")
  .meta({ examples: [{ supply: true, burnable: true }] });

export const Erc20Token = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .meta({ examples: ["Gold"] }),
  symbol: z
    .string()
    .min(1)
    .max(32)
    .meta({ examples: ["GLD"] }),
  decimals: z.number().int().min(0).max(36).optional().describe("Default 18"),
  initialSupply: integerString("Minted to `minter` at launch; default 0", "1000000000000000000000").optional(),
  totalSupply: integerString("Supply cap; omit for no cap", "1000000000000000000000000").optional(),
  minter: address.optional().describe("Receives the initial supply; default sender"),
  account: address.optional().describe("Administers the token and may mint more; default sender"),
  options: Erc20Options.optional(),
});

export const Erc721Token = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .meta({ examples: ["Art"] }),
  symbol: z
    .string()
    .min(1)
    .max(32)
    .meta({ examples: ["ART"] }),
  uri: z
    .string()
    .max(2048)
    .optional()
    .describe("Base URI: tokenURI = uri + tokenId")
    .meta({ examples: ["https://example.com/art/"] }),
  options: Erc721Options.optional(),
});

export const Erc1155Token = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .describe("The collection's name (ERC-1155 has none; the contract answers it as name())")
    .meta({ examples: ["Items"] }),
  uri: z
    .string()
    .max(2048)
    .optional()
    .describe("Every id's metadata URI: clients replace `{id}` with the id as 64 lowercase hex digits (ERC-1155)")
    .meta({ examples: ["https://example.com/items/{id}.json"] }),
  options: Erc1155Options.optional(),
});

export const TokenType = z
  .string()
  .describe("SERVICE_ERC20, SERVICE_ERC721, SERVICE_ERC1155, ERC20, ERC721 or ERC1155, case-insensitive")
  .meta({ examples: ["SERVICE_ERC20"] });

const salt = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be 32 bytes as 0x-prefixed hex (66 characters)")
  .describe(
    "Deploys through the CREATE2 factory 0x4e59b44847b379578588920cA78FbF26c0B4956C: the address then depends only on the salt and the contract with its constructor arguments (type, token fields, options, and the sender where it is the default minter or owner), and is the same on every chain. A second launch at an address that holds a contract is refused (409 ALREADY_DEPLOYED)",
  )
  .meta({ examples: [EXAMPLE_SALT] });

export const privateKey = z
  .string()
  .describe(
    "The sender's key; used to sign, never stored or logged. The example is the key of Hardhat's first default account, which is public: use it on simulated chains only",
  )
  .meta({ examples: [EXAMPLE_ACCOUNT.privateKey] });
export const signedTransaction = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, "must be 0x-prefixed hex")
  .describe(
    "The `unsignedTransaction` a prepare (this body without privateKey) answered, signed by `sender` unchanged: 0x hex, as an ethers Signer's signTransaction returns it",
  );

const launchFields = {
  chain,
  network,
  type: TokenType,
  token: z.union([Erc20Token, Erc721Token, Erc1155Token]),
  sender: address.describe("Pays for the deployment; for ERC721 and ERC1155 it becomes the minter (and the owner or admin)"),
  salt: salt.optional(),
};

/**
 * A write's body: its own fields, and who signs. `fields` is what the body may hold, checked at once; `body` the
 * documented union, which says what each combination means (the key signs, a signed transaction is submitted, or
 * neither: a prepare).
 */
export function signedWrite<F extends z.ZodRawShape>(own: F) {
  return {
    fields: z.strictObject({ ...own, privateKey: privateKey.optional(), signedTransaction: signedTransaction.optional() }),
    body: z.union([
      z.strictObject({ ...own, privateKey }).meta({ title: "Signed by the service with privateKey" }),
      z.strictObject({ ...own, signedTransaction }).meta({ title: "Submit: the prepared transaction, signed by the caller" }),
      z.strictObject(own).meta({ title: "Prepare: answers the unsigned transaction to sign, its nonce reserved" }),
    ]),
  };
}

export const LaunchWrite = signedWrite(launchFields);

export const LaunchQuery = z.object({
  chain: chain.optional().describe("Must equal the body's chain when given"),
  network: network.optional().describe("Must equal the body's network when given"),
  wait: z.enum(["mined"]).optional().describe("Answer once mined (202 with status pending after the wait timeout)"),
});

export const TransactionState = z.enum(["pending", "mined", "failed", "dropped"]);
/**
 * An operation's lifecycle: signed → pending → mined | failed | dropped | cancelled (a reorg moves mined or cancelled
 * back to pending).
 */
export const OperationState = z.enum(OPERATION_STATUSES);

export const Launch = z.object({
  id: z.string().describe("This launch's record id"),
  transactionHash,
  contractAddress,
  status: OperationState.describe(
    "pending when answered at once; with wait=mined the state reached: mined, failed, dropped (or pending after the wait timeout)",
  ),
  chain: z.string(),
  network: z.string(),
  type: z.enum(["ERC20", "ERC721", "ERC1155"]),
  sender: shownAddress,
  nonce: z.number().int().nonnegative().describe("The sender's nonce this launch used"),
  simulated: z.boolean(),
  blockNumber: z.number().int().nonnegative().nullable().optional(),
});

const positiveAmount = (description: string, example = ONE_TOKEN) =>
  z
    .string()
    .regex(/^0*[1-9]\d*$/, "must be a decimal string of a positive integer (smallest units)")
    .describe(description)
    .meta({ examples: [example] });

const tokenIdString = (description: string) => integerString(description, "1");

const mintUri = z.string().max(2048);

export const MintRecipient = z
  .strictObject({
    to: address.describe("Who receives it"),
    amount: positiveAmount("ERC20 and ERC1155 (required there): how many, in smallest units, greater than 0").optional(),
    tokenId: tokenIdString(
      "ERC721: a chosen id, given for every recipient or for none (then each gets the next free id); ERC1155 (required): which id",
    ).optional(),
    uri: mintUri.optional().describe("ERC721 launched with uriStorage: this token's own URI"),
  })
  .describe("One recipient of a batch mint");

const mintBatchLimit = (what: string) =>
  [MAX_MINT_RECIPIENTS, `at most ${MAX_MINT_RECIPIENTS} ${what} in one transaction: split the batch`] as const;

const mintFields = {
  chain,
  network,
  type: TokenType,
  contractAddress: address.meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
  to: address.optional().describe("Who receives it; required but with `recipients`"),
  tokenId: tokenIdString("ERC721: a chosen id; default the next free one. ERC1155 (required for one id): which id").optional(),
  uri: mintUri.optional().describe("ERC721 launched with uriStorage (or without options): this token's own URI"),
  amount: positiveAmount("ERC20 and ERC1155 (required there): how many, in smallest units, greater than 0").optional(),
  tokenIds: z
    .array(tokenIdString("An id of the collection"))
    .min(1, "must name at least one id")
    .max(...mintBatchLimit("ids"))
    .optional()
    .describe("ERC1155: several ids to `to` in one call of the collection's mintBatch, `amounts` in the same order"),
  amounts: z
    .array(positiveAmount("How many of the id at the same position of tokenIds", "10"))
    .min(1, "must name at least one amount")
    .max(...mintBatchLimit("amounts"))
    .optional()
    .describe("ERC1155 with tokenIds: how many of each"),
  recipients: z
    .array(MintRecipient)
    .min(1, "must name at least one recipient")
    .max(...mintBatchLimit("recipients"))
    .optional()
    .describe(
      `Several recipients minted in one transaction (the token's airdrop function), all or nothing; at most ${MAX_MINT_RECIPIENTS}. Then no top-level to, amount, tokenId or uri. Tokens launched without options (the historic contracts) have no batch mint: 422 BATCH_MINT_UNSUPPORTED`,
    ),
  sender: address.describe("A minter of the contract: a MINTER_ROLE holder, or the owner of a token launched with access ownable"),
};

export const MintWrite = signedWrite(mintFields);

const mintedRecipient = z.object({
  to: shownAddress,
  amount: z.string().optional(),
  tokenId: z.string().optional(),
  uri: z.string().optional(),
});

export const Mint = z.object({
  id: z.string(),
  transactionHash: z.string(),
  status: OperationState,
  chain: z.string(),
  network: z.string(),
  type: z.enum(["ERC20", "ERC721", "ERC1155"]),
  contractAddress: z.string(),
  to: z.string().optional().describe("Who received it; absent for a batch (each recipient names its own)"),
  tokenId: z.string().optional().describe("ERC721: the id given, or, with wait=mined, the id minted; ERC1155: the id"),
  amount: z.string().optional(),
  tokenIds: z
    .array(z.string())
    .optional()
    .describe("ERC1155 mintBatch: the ids. An ERC721 batch, with wait=mined: the ids minted, in the order of recipients"),
  amounts: z.array(z.string()).optional().describe("ERC1155 mintBatch: how many of each id"),
  recipients: z.array(mintedRecipient).optional().describe("A batch's recipients, as given"),
  simulated: z.boolean(),
  blockNumber: z.number().int().nonnegative().nullable().optional(),
});

export const UnsignedTransaction = z
  .object({
    chainId: z.number().int().nonnegative(),
    type: z.union([z.literal(2), z.literal(0)]).describe("2 (EIP-1559) where the chain reports base fees, else 0 (legacy, EIP-155)"),
    nonce: z.number().int().nonnegative().describe("Reserved for the sender until expiresAt"),
    gasLimit: integerString("The node's estimate plus 20 %, at most 16777216 (EIP-7825's cap) for a transaction estimated within it"),
    maxFeePerGas: integerString("Type 2 only, wei").optional(),
    maxPriorityFeePerGas: integerString("Type 2 only, wei").optional(),
    gasPrice: integerString("Type 0 only, wei").optional(),
    to: z
      .string()
      .nullable()
      .describe(
        "null for a launch (a contract creation); the recipient for a NATIVE transfer; the token contract for every other write (a mint, a token transfer, an approval, a burn, a pause, a role or ownership change)",
      ),
    data: z.string(),
    value: integerString("Native currency it sends, in wei: 0 but for a NATIVE transfer"),
  })
  .describe("Sign exactly this (e.g. ethers `signer.signTransaction(unsignedTransaction)`); any change is refused");

/**
 * A prepare's answer: the transaction to sign, and until when its nonce is reserved; `type` as the write names it (none
 * for a write to any token that has the function: a pause, a role, an ownership transfer).
 */
export const preparedTransaction = (type?: z.ZodType) =>
  z.object({
    unsignedTransaction: UnsignedTransaction,
    expiresAt: z
      .string()
      .describe("Until then the nonce is reserved; a later submit is accepted only while the nonce is still free (nothing took it since)"),
    chain: z.string(),
    network: z.string(),
    ...(type !== undefined ? { type } : {}),
    sender: z.string(),
  });

const tokenStandard = z.enum(["ERC20", "ERC721", "ERC1155"]);
export const PreparedLaunch = preparedTransaction(tokenStandard).extend({
  contractAddress: z.string().describe("Where the token will be, given the nonce (or, with a salt, given the salt)"),
});
export const PreparedMint = preparedTransaction(tokenStandard);

export const WaitQuery = z.object({ wait: z.enum(["mined"]).optional() });

export const TokenBalanceQuery = z.object({
  tokenAddress: address.meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
  type: z
    .string()
    .describe("erc20, erc721 or erc1155")
    .meta({ examples: ["erc20"] }),
  tokenId: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe("erc1155 only, and required there: the ids to read, comma-separated and/or repeated, at most 50"),
  chain,
  network,
});

export const TokenBalance = z.object({
  address: z.string(),
  tokenAddress: z.string(),
  type: z.enum(["erc20", "erc721", "erc1155"]),
  balance: z.string().describe("erc1155: the sum over the ids read"),
  tokenIds: z.array(z.string()).optional(),
  tokenBalances: z
    .array(z.object({ tokenId: z.string(), balance: z.string() }))
    .optional()
    .describe("erc1155: each id read, in the order asked"),
  uiBalance: z.string().optional(),
  decimals: z.number().int().nonnegative().optional(),
  symbol: z.string().optional(),
  chain: z.string(),
  network: z.string(),
  simulated: z.boolean(),
});

export const TransactionQuery = z.object({ chain, network });

export const TransactionStatus = z.object({
  transactionHash,
  status: TransactionState.describe(
    "A replaced hash: pending while its operation is unfinished (it may still win), dropped once another of its transactions took the nonce",
  ),
  blockNumber: z.number().int().nonnegative().nullable(),
  confirmations: z.number().int().nonnegative(),
  contractAddress: z.string().nullable(),
  simulated: z.boolean(),
  replaced: z
    .literal(true)
    .optional()
    .describe("Present on a hash an operation was sent as and then replaced (a speed-up, a cancel, or one the service sent)"),
  replacedBy: z.string().optional().describe("The operation's transaction now: the one that replaced it, or the one that was mined"),
});

export const FaucetBody = z.strictObject({
  chain,
  network,
  address,
  amount: integerString("Smallest units; default 10 of the native currency").optional(),
});

export const FaucetResult = z.object({
  id: z.string().describe("This grant's record id"),
  chain: z.string(),
  network: z.string(),
  address: z.string(),
  amount,
  balance: nativeAmount.describe("The address's balance after the grant"),
  simulated: z.boolean(),
  transactionHash: z.string().optional(),
});

export const NetworkList = z.object({
  networks: z.array(
    z.object({
      chain: z.string(),
      network: z.string(),
      kind: z.enum(["evm", "bitcoin"]),
      chainId: z.number().int().nonnegative().optional().describe("EVM only"),
      nativeSymbol: z.string(),
      nativeDecimals: z.number().int().nonnegative(),
      simulated: z.boolean(),
      backend: z.string(),
      endpoint: z.string(),
      note: z.string().optional(),
      rollup: z
        .enum(["op-stack", "arbitrum"])
        .optional()
        .describe("op-stack: the L1 data fee counts in the funds check; arbitrum: the node's gas estimate covers L1"),
      declaredIn: z.string().optional().describe("A chain declared in configuration: tokenService.chains or TOKEN_SERVICE_CHAINS"),
    }),
  ),
});

const listFilterValues = (what: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(`${what}: comma-separated and/or repeated; a record matching any of them is listed`);

export const OperationListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Default 20"),
  cursor: z
    .string()
    .optional()
    .describe("nextCursor of the previous page (the filters may change between pages: the cursor is a position)"),
  kind: listFilterValues(`Only these kinds (${OPERATION_KINDS.join(", ")})`),
  status: listFilterValues(`Only these statuses (${OPERATION_STATUSES.join(", ")})`),
  sender: z.string().optional().describe("Only writes from this address"),
  chain: z.string().optional().describe("Only on this chain"),
  network: z.string().optional().describe("Only on this network (with chain)"),
});

/** `GET /tokens`: the same filters, the kind fixed to launches. */
export const TokenListQuery = OperationListQuery.omit({ kind: true });

export const Operation = z.object({
  id: z.string(),
  kind: z.enum(OPERATION_KINDS),
  chain: z.string(),
  network: z.string(),
  type: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  sender: z.string().nullable(),
  transactionHash: z.string().nullable(),
  contractAddress: z
    .string()
    .nullable()
    .describe(
      "A launch's token (the contract a write calls): deployed once a launch is mined; a cancelled or failed launch deploys nothing there",
    ),
  nonce: z.number().int().nonnegative().nullable(),
  status: OperationState,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  blockNumber: z.number().int().nonnegative().nullable(),
  blockHash: z.string().nullable(),
  result: z.record(z.string(), z.unknown()).nullable().describe("What mining revealed, e.g. an ERC721 mint's tokenId"),
  transitions: z
    .array(z.object({ status: OperationState, at: z.string(), reason: z.string() }))
    .describe("Every state change with its time and reason, oldest first"),
  stuck: z
    .object({
      at: z.string(),
      transactionHash: z.string().describe("The transaction it waits on"),
      reason: z.string(),
    })
    .nullable()
    .describe(
      "Set once (webhook operation.stuck) when it is pending past its replace-after blocks with no higher fee the service can send on its own; cleared by a later speed-up or cancel",
    ),
  transactions: z
    .array(
      z.object({
        transactionHash: z.string(),
        role: z
          .enum(TRANSACTION_ROLES)
          .describe(
            "original, replacement (same call, higher fees) or cancel (a zero-value transfer to the sender; on Bitcoin, the same coins back to the sender)",
          ),
        rung: z.number().int().nonnegative().describe("Its step on the fee ladder: 0 the original"),
        maxFeePerGas: z.string().nullable(),
        maxPriorityFeePerGas: z.string().nullable(),
        gasPrice: z.string().nullable().describe("A legacy transaction's price, instead of the EIP-1559 fees"),
        fee: z.string().optional().describe("Bitcoin only (its fees per gas are null): the satoshis it pays"),
        feeRate: z.number().optional().describe("Bitcoin only: the rate it pays, sat/vB"),
        broadcastAt: z.string().describe("When it was written as sent, just before its broadcast"),
      }),
    )
    .describe(
      "Every transaction it was sent as, lowest fees first (empty for a faucet grant, and for a record made before the service kept them); whichever is mined settles it, and transactionHash follows the latest sent (then the one mined)",
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** A speed-up or cancel of a caller-signed operation (or one whose signed-ahead steps are used up), prepared to sign. */
export const PreparedReplacement = z.object({
  operationId: z.string(),
  chain: z.string(),
  network: z.string(),
  sender: z.string(),
  replacement: z.enum(["speed-up", "cancel"]),
  replaces: z.string().describe("The transaction it replaces: the one the operation follows now"),
  unsignedTransaction: UnsignedTransaction.describe(
    "Sign this (the operation's nonce; fees at least 12.5 % above the transaction it replaces, raised to what the node asks now) and send it back as signedTransaction",
  ),
  ceiling: integerString("The operation's fee ceiling, wei per gas: a replacement may pay up to it"),
});

export const ReplacementBody = z.strictObject({
  signedTransaction: signedTransaction
    .optional()
    .describe(
      "The prepared replacement, signed by the operation's sender; without it, the service sends the next step signed ahead or prepares one",
    ),
  feeRate: z
    .number()
    .min(1)
    .max(10_000)
    .optional()
    .describe(
      "Bitcoin operations only: the replacement's rate, sat/vB, above the current one; default: the backend's next-block estimate, at least 1 sat/vB above the current rate",
    ),
});

export const OperationList = z.object({
  items: z.array(Operation),
  nextCursor: z.string().nullable(),
});

const WebhookEventName = z.enum(WEBHOOK_EVENTS);

export const CreateWebhookBody = z.strictObject({
  url: z
    .string()
    .max(2048)
    .describe("http or https; private, loopback and link-local targets are refused unless the service allows them")
    .meta({ examples: ["https://example.com/hooks/token-service"] }),
  events: z
    .array(WebhookEventName)
    .min(1)
    .max(WEBHOOK_EVENTS.length * 4)
    .describe("The operation state changes, and the chain events of your subscriptions (chain.*), to receive"),
});

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEventName),
  createdAt: z.string(),
});

export const CreatedWebhook = Webhook.extend({
  secret: z.string().describe("Signs every delivery (Token-Service-Signature); shown only in this answer"),
});

export const WebhookList = z.object({ items: z.array(Webhook) });

export const DeliveryList = z.object({
  items: z.array(
    z.object({
      id: z.string().describe("The event id: the Webhook-Id header of each attempt; de-duplicate by it"),
      eventType: WebhookEventName,
      operationId: z.string(),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: z
        .number()
        .int()
        .nonnegative()
        .describe("Attempts started, one a crash cut short included (it may have reached the receiver)"),
      lastError: z.string().nullable(),
      lastResponseStatus: z.number().int().nonnegative().nullable(),
      nextAttemptAt: z.string().nullable().describe("While pending: when the next attempt is due"),
      createdAt: z.string(),
      deliveredAt: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

/** What a webhook receives: one operation state change, as POST body. */
export const WebhookEventBody = z.object({
  id: z.string().describe("The event id, also sent as the Webhook-Id header: the same event may arrive more than once"),
  type: WebhookEventName,
  createdAt: z.string().describe("When the state change was recorded"),
  data: Operation.describe("The operation after the change, as GET /api/v1/tokens lists it"),
});

export const OperationQuery = z.object({
  waitSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .optional()
    .describe(
      "Answer once the operation is final (mined, failed, dropped, cancelled), or after this many seconds (at most the service's wait timeout) with its state then",
    ),
});

export const Health = z.object({
  status: z.enum(["ok", "degraded"]),
  backends: z.record(
    z.string(),
    z.object({
      ready: z.boolean().nullable().describe("null when not probed (public Esplora APIs are not sent health-check traffic)"),
      simulated: z.boolean().optional().describe("With an API key"),
      detail: z.string().optional().describe("With an API key: where the backend is and what the probe found"),
      endpoints: z
        .array(
          z.object({
            endpoint: z.string().describe("The endpoint's host (never its credentials or path)"),
            state: z
              .enum(ENDPOINT_STATES as [EndpointState, ...EndpointState[]])
              .describe(
                "up: it answered; failing: its last request failed; down: skipped for a cool-down after failures in a row; half-open: the cool-down is over, the next request tries it; wrong-chain: it serves another chain, never used; unknown: not asked yet",
              ),
            detail: z.string().optional().describe("Why it is not up"),
            block: z.number().int().optional().describe("The latest block it reported"),
          }),
        )
        .optional()
        .describe("With an API key, on a live EVM pair: its endpoints in the order requests try them, each probed"),
    }),
  ),
});

export const Readiness = Health.extend({
  ready: z.boolean(),
  reasons: z.array(z.string()).describe("What keeps writes from being accepted, `<backend>: <why>` (keyless: `<backend>: not ready`)"),
});

const errorFields = {
  message: z.string(),
  field: z.string().optional().describe("The request field the error concerns"),
  details: z.record(z.string(), z.unknown()).optional(),
};

const errorCodeDescription = "Stable machine-readable code (see docs/reference/errors.md)";

export const ErrorResponse = z.object({
  error: z.object({ code: z.string().describe(errorCodeDescription), ...errorFields }),
});

/** The error shape whose `code` is one of these (the codes of one HTTP status). */
export function errorResponseWithCodes(codes: readonly [string, ...string[]]) {
  return z.object({ error: z.object({ code: z.enum(codes).describe(errorCodeDescription), ...errorFields }) });
}

// ---- chain faults (TOKEN_SERVICE_CHAIN_FAULTS=on) -------------------------------------------------------------------

const faultBlocks = (description: string, max = MAX_FAULT_BLOCKS) => z.number().int().min(1).max(max).describe(description);
const faultSeconds = z.number().positive().max(MAX_FAULT_SECONDS).describe("Length in seconds");

/** The fault request, as documented; the core checks it (src/domain/faults.ts) and names the first bad field. */
export const ChainFaultBody = z.discriminatedUnion("fault", [
  z
    .strictObject({
      fault: z.literal("fee-spike"),
      multiplier: z
        .number()
        .min(1)
        .max(MAX_FEE_MULTIPLIER)
        .optional()
        .describe("The base fee times this (from the base fee before the spike); or baseFeePerGas"),
      baseFeePerGas: integerString("The base fee in wei, instead of multiplier", "50000000000").optional(),
      blocks: faultBlocks("Blocks the spike lasts; the first is mined at once"),
    })
    .meta({ title: "fee-spike: blocks at a higher base fee" }),
  z
    .strictObject({
      fault: z.literal("stall"),
      blocks: faultBlocks("Blocks not mined (on a chain with a block time)").optional(),
      seconds: faultSeconds.optional(),
    })
    .meta({ title: "stall: nothing mined for a while; what was sent waits, then is mined" }),
  z
    .strictObject({
      fault: z.literal("drop"),
      blocks: faultBlocks("Blocks not mined before the pool is forgotten (on a chain with a block time)").optional(),
      seconds: faultSeconds.optional(),
    })
    .meta({ title: "drop: what waits is forgotten (at once, or at the end of a stall of that length)" }),
  z
    .strictObject({
      fault: z.literal("reorg"),
      blocks: faultBlocks("How many of the latest blocks a longer fork replaces", MAX_REORG_BLOCKS),
    })
    .meta({ title: "reorg: the latest blocks replaced; their transactions mined again in new blocks" }),
  z
    .strictObject({
      fault: z.literal("rpc-errors"),
      rate: z.number().min(0).max(1).describe("Share of the node calls that fail, 0 to 1"),
      calls: z.number().int().min(1).max(1_000_000).optional().describe("For this many calls (or seconds; neither: until cleared)"),
      seconds: faultSeconds.optional(),
      errors: z.array(z.enum(RPC_ERROR_KINDS)).min(1).optional().describe("How calls fail; default all three"),
    })
    .meta({ title: "rpc-errors: node calls answer 429 or 503, or time out" }),
]);

export const ChainFault = z.object({
  id: z.string().describe("Name it to DELETE it alone"),
  fault: z.enum(CHAIN_FAULT_KINDS),
  chain: z.string(),
  network: z.string(),
  status: z.enum(["active", "ended"]).describe("A reorg or a drop without a length acts at once: ended"),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  endReason: z.string().nullable().describe('"ran its length", "cleared", "replaced by <id>", "done"'),
  request: z.record(z.string(), z.unknown()).describe("The request as checked"),
  remaining: z
    .object({ blocks: z.number().optional(), seconds: z.number().optional(), calls: z.number().optional() })
    .nullable()
    .describe("What is left while active; null: until cleared, or ended"),
  effect: z
    .record(z.string(), z.unknown())
    .describe(
      "What it did: fee-spike baseFeePerGas, baseFeeBefore, blocks; stall/drop held, blocksSkipped, forgotten (hashes); reorg replacedFrom, oldHead, head, transactions, reincluded, forgotten; rpc-errors calls, failed (by kind)",
    ),
});

export const ChainFaultList = z.object({ faults: z.array(ChainFault) });
export const ClearedChainFaults = z.object({ cleared: z.array(ChainFault).describe("The faults ended, now ended") });
