import { invalidArgument } from "../../domain/errors.js";
import { parseTokenType } from "../../domain/token-params.js";
import { presentOperation } from "../../domain/present-operation.js";
import { defineRoute } from "../route.js";
import {
  Erc1155Token,
  Erc20Token,
  Erc721Token,
  Launch,
  LaunchQuery,
  LaunchWrite,
  Mint,
  MintWrite,
  PreparedLaunch,
  PreparedMint,
  TokenBalance,
  TokenBalanceQuery,
} from "../token-schemas.js";
import { Operation, OperationQuery } from "../operation-schemas.js";
import { parseWith } from "../validation.js";
import { isDataException } from "../database-errors.js";
import {
  EXAMPLE_ACCOUNT,
  EXAMPLE_COLLECTION_CONTRACT,
  EXAMPLE_MANAGED_CONTRACT,
  EXAMPLE_MANAGED_SALT,
  EXAMPLE_MINTABLE_CONTRACT,
  EXAMPLE_PAIR,
  EXAMPLE_RECIPIENT,
  EXAMPLE_SALT,
  EXAMPLE_THIRD_ACCOUNT,
  EXAMPLE_TOKEN_CONTRACT,
  EXAMPLE_VOTES_CONTRACT,
  EXAMPLE_VOTES_SALT,
  ONE_TOKEN,
} from "../examples.js";
import { MAX_MINT_RECIPIENTS } from "../../domain/mint-commands.js";
import { errorResponses } from "./common.js";
import { defineWriteRoute } from "./write-route.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";

// A launch body's schema for each kind of token, made once: zod compiles a schema's parser on its first use, and a
// schema made per request would be compiled again for every launch (about 1 ms each).
const LAUNCH_ERC20 = LaunchWrite.fields.extend({ token: Erc20Token });
const LAUNCH_ERC721 = LaunchWrite.fields.extend({ token: Erc721Token });
const LAUNCH_ERC1155 = LaunchWrite.fields.extend({ token: Erc1155Token });

export const launchTokenRoute = defineWriteRoute({
  path: "/tokens",
  operationId: "launchToken",
  tag: "tokens",
  summary: "Launch an ERC20, ERC721 or ERC1155 token contract",
  description:
    "Signs the deployment with `privateKey` (never stored or logged) and answers once the node accepted it: `status` is `pending` and `contractAddress` follows from sender and nonce. Poll GET /transactions/{hash}, or pass `wait=mined`.\n\n" +
    "`token.options` composes OpenZeppelin's extensions (burnable, pausable, permit, votes, royalty…): see docs/tokens.md. With `salt`, the token is deployed through the CREATE2 factory at an address known before sending and equal on every chain; a second launch of the same salt and parameters is refused with 409 ALREADY_DEPLOYED before anything is signed.\n\n" +
    "Keys that never leave the caller: the same body without `privateKey` answers the `unsignedTransaction` to sign (its nonce reserved for the sender until `expiresAt`); the same body with `signedTransaction` (that transaction, signed by `sender`) is checked to be exactly the prepared one, then recorded and broadcast as a key-in-body launch is.",
  write: LaunchWrite,
  query: LaunchQuery,
  bodyExamples: {
    signedByService: {
      summary: "ERC20 signed by the service (Hardhat's first account; its key is public: simulated chains only)",
      value: {
        ...EXAMPLE_PAIR,
        type: "SERVICE_ERC20",
        token: { name: "Gold", symbol: "GLD", initialSupply: "1000000000000000000000" },
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    erc721: {
      summary: "ERC721 signed by the service",
      value: {
        ...EXAMPLE_PAIR,
        type: "SERVICE_ERC721",
        token: { name: "Art", symbol: "ART", uri: "https://example.com/art/" },
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    erc20WithOptions: {
      summary: "ERC20 with options: burnable, EIP-2612 permit, mintable by one owner",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        token: {
          name: "Gold",
          symbol: "GLD",
          initialSupply: ONE_TOKEN,
          options: { burnable: true, permit: true, mintable: true, access: "ownable" },
        },
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    erc721WithRoyalty: {
      summary: "ERC721 with options: enumerable, 2.5 % ERC-2981 royalty",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC721",
        token: {
          name: "Art",
          symbol: "ART",
          uri: "https://example.com/art/",
          options: { enumerable: true, royalty: { receiver: EXAMPLE_ACCOUNT.address, basisPoints: 250 } },
        },
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    erc1155: {
      summary: "ERC1155 collection: one URI for every id ({id} replaced by clients), with per-id supply",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC1155",
        token: { name: "Items", uri: "https://example.com/items/{id}.json", options: { supply: true } },
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    sameAddressEverywhere: {
      summary: "CREATE2 with a salt: the same address on every chain",
      description:
        "The answer's `contractAddress` depends on the salt and the token's contract and arguments only: the same body on another chain lands at the same address. The same launch again answers 409 ALREADY_DEPLOYED.",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        token: { name: "Gold", symbol: "GLD", initialSupply: ONE_TOKEN, minter: EXAMPLE_ACCOUNT.address, account: EXAMPLE_ACCOUNT.address },
        salt: EXAMPLE_SALT,
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    managed: {
      summary:
        "ERC20 to burn, pause and hand over: burnable, pausable, one owner, at the address the burn, pause and ownership examples name",
      description:
        'The salt (ethers\' `id("gold-managed-v1")`) puts it at `' +
        EXAMPLE_MANAGED_CONTRACT +
        "` on every chain, whatever the example account launched before.",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        token: {
          name: "Gold",
          symbol: "GLD",
          initialSupply: "1000000000000000000000",
          options: { burnable: true, pausable: true, access: "ownable" },
        },
        salt: EXAMPLE_MANAGED_SALT,
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    votes: {
      summary: "ERC20 with votes (ERC20Votes), at the address the delegation examples name",
      description:
        'The salt (ethers\' `id("gold-votes-v1")`) puts it at `' +
        EXAMPLE_VOTES_CONTRACT +
        "` on every chain. Its holders' tokens count as votes once delegated (POST /tokens/delegate).",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        token: { name: "Gold Votes", symbol: "GLDV", initialSupply: "1000000000000000000000", options: { votes: true } },
        salt: EXAMPLE_VOTES_SALT,
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    prepare: {
      summary: "Prepare: no key, answers the unsigned transaction to sign",
      description: "Sign the answer's `unsignedTransaction` unchanged and send this body again with `signedTransaction` instead.",
      value: { ...EXAMPLE_PAIR, type: "SERVICE_ERC20", token: { name: "Gold", symbol: "GLD" }, sender: EXAMPLE_ACCOUNT.address },
    },
  },
  answer: Launch,
  prepared: PreparedLaunch,
  acceptedDescription:
    "Signed and recorded, but the node's answer to the broadcast is unknown (status signed; the service sends it), or wait=mined timed out (status pending)",
  parseBody(raw: unknown) {
    const type = parseTokenType((raw as { type?: unknown } | null)?.type);
    return parseWith(type === "ERC20" ? LAUNCH_ERC20 : type === "ERC721" ? LAUNCH_ERC721 : LAUNCH_ERC1155, raw);
  },
  checkQuery(query, body) {
    for (const field of ["chain", "network"] as const) {
      if (query[field] !== undefined && query[field] !== body[field]) {
        throw invalidArgument(field, `query parameter ${field}=${query[field]} disagrees with the body's ${field}=${body[field]}`);
      }
    }
  },
  command: "launch",
});

export const mintTokenRoute = defineWriteRoute({
  path: "/tokens/mint",
  operationId: "mintToken",
  tag: "tokens",
  summary: "Mint ERC20 supply, ERC721 tokens or ERC1155 ids: to one holder, or to many in one transaction",
  description:
    "Signed by `sender`, who must be a minter of the contract: a holder of its MINTER_ROLE, or its owner when it was launched with access `ownable` (422 NOT_A_MINTER names the owner), or a caller its AccessManager allows when it was launched with access `managed` (422 NOT_A_MINTER names `AccessManagedUnauthorized`). With wait=mined an ERC721 mint reports the new `tokenId`.\n\n" +
    "- **ERC20**: `to` and `amount`. **ERC721**: `to`, optionally `tokenId` and, for a token launched with uriStorage (or without options), `uri`. **ERC1155**: `to`, `tokenId` and `amount`, or several ids to `to` at once with `tokenIds` and `amounts` (the collection's mintBatch).\n" +
    `- **A batch**: \`recipients\`, at most ${MAX_MINT_RECIPIENTS}, each with its own \`to\` and \`amount\`, \`tokenId\` or \`uri\`, minted in one transaction by the token's airdrop function: all or none. Tokens launched with options have it (an ERC20 with mintable); the historic contracts of a launch without options do not (422 BATCH_MINT_UNSUPPORTED). With wait=mined an ERC721 batch reports the minted \`tokenIds\` in the order of recipients.\n\n` +
    "As with launches, without `privateKey` it answers the `unsignedTransaction` to sign, and takes it back as `signedTransaction`.",
  write: MintWrite,
  bodyExamples: {
    erc20: {
      summary: "1 GLD more, to Hardhat's second account (the contract: the example account's first launch)",
      value: {
        ...EXAMPLE_PAIR,
        type: "SERVICE_ERC20",
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        amount: ONE_TOKEN,
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    erc1155: {
      summary: "10 of id 1 of an ERC1155 collection (the launch example erc1155, tried after the first mint)",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC1155",
        contractAddress: EXAMPLE_COLLECTION_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        tokenId: "1",
        amount: "10",
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    erc1155Ids: {
      summary: "Several ids of a collection to one holder, in one mintBatch call",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC1155",
        contractAddress: EXAMPLE_COLLECTION_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        tokenIds: ["2", "3"],
        amounts: ["20", "30"],
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    batch: {
      summary: "A batch: GLD to two recipients in one transaction (the launch example erc20WithOptions: mintable, ownable)",
      description:
        "All recipients are minted, or none. The historic contracts (a launch without options) answer 422 BATCH_MINT_UNSUPPORTED.",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        contractAddress: EXAMPLE_MINTABLE_CONTRACT,
        recipients: [
          { to: EXAMPLE_RECIPIENT, amount: ONE_TOKEN },
          { to: EXAMPLE_THIRD_ACCOUNT, amount: "2000000000000000000" },
        ],
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      },
    },
    prepare: {
      summary: "Prepare: no key, answers the unsigned transaction to sign",
      value: {
        ...EXAMPLE_PAIR,
        type: "SERVICE_ERC20",
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        amount: ONE_TOKEN,
        sender: EXAMPLE_ACCOUNT.address,
      },
    },
  },
  answer: Mint,
  prepared: PreparedMint,
  command: "mint",
});

export const getOperationRoute = defineRoute({
  method: "get",
  paths: ["/operations/:id"],
  operationId: "getOperation",
  tag: "operations",
  summary: "One write made with your API key (a launch, mint, transfer, approval, burn, pause, role or ownership change, faucet grant)",
  description: "By its record `id` or its `transactionHash`. With `waitSeconds`, answers once it is final or when that time is up.",
  auth: true,
  pathParams: { id: "The record id a write answered, or its transaction hash" },
  query: OperationQuery,
  responses: { 200: { description: "The record as it stands", schema: Operation }, ...errorResponses(400, 401, 404, 429) },
  async handle({ query, params, apiKeyId }, context) {
    const idOrHash = params.id ?? "";
    const notFound = () =>
      new HttpError(HttpErrorCode.NOT_FOUND, "no operation with this id or transaction hash was made with this API key", "id");
    const found = await context.store.findOwnOperation(apiKeyId, idOrHash).catch((error: unknown) => {
      // An id the database cannot even compare (NUL, an unpaired surrogate) names no record.
      throw isDataException(error) ? notFound() : error;
    });
    if (found === undefined) throw notFound();
    const waitMs = Math.min((query.waitSeconds ?? 0) * 1000, context.waitTimeoutMs);
    const record = waitMs > 0 ? await context.service.operations.wait(found.id, waitMs) : found;
    return { body: presentOperation(record) };
  },
});

export const tokenBalanceRoute = defineRoute({
  method: "get",
  paths: ["/tokens/:address/balance"],
  operationId: "readTokenBalance",
  tag: "balances",
  summary: "Read an address's balance of one token",
  description:
    "The document's form writes the address as the path segment `address=<address>`: `/api/v1/tokens/address=0x…/balance`. `/api/v1/tokens/0x…/balance` answers too. ERC721 results list the owned `tokenIds`. An ERC1155 read (`type=erc1155`) names the ids to read in `tokenId` (`tokenId=1,2,3`, or repeated) and answers each in `tokenBalances`, their sum in `balance`.",
  auth: true,
  pathParams: { address: "The holder, as `address=<address>` or plain" },
  query: TokenBalanceQuery,
  responses: { 200: { description: "The balance", schema: TokenBalance }, ...errorResponses(400, 401, 422, 429, 502, 504) },
  async handle({ query, params }, { service }) {
    const segment = params.address ?? "";
    const address = segment.startsWith("address=") ? segment.slice("address=".length) : segment;
    service.chains.resolve(query.chain, query.network);
    return { body: await service.getTokenBalance({ ...query, address }) };
  },
});
