import { defineRoute } from "../route.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_NFT_CONTRACT, EXAMPLE_PAIR, EXAMPLE_RECIPIENT, EXAMPLE_TOKEN_CONTRACT, ONE_TOKEN } from "../examples.js";
import {
  Allowance,
  AllowanceQuery,
  Approval,
  ApproveWrite,
  OwnedTokens,
  OwnedTokensQuery,
  PairQuery,
  PreparedApproval,
  PreparedTransfer,
  TokenInfo,
  Transfer,
  TransferWrite,
  BitcoinTransfer,
  BitcoinTransferBody,
} from "../transfer-schemas.js";
import type { z } from "zod/v4";
import { errorResponses } from "./common.js";
import { defineWriteRoute } from "./write-route.js";

const signedByService = { sender: EXAMPLE_ACCOUNT.address, privateKey: EXAMPLE_ACCOUNT.privateKey };

export const transferRoute = defineWriteRoute({
  path: "/transfers",
  operationId: "transfer",
  tag: "transfers",
  summary: "Send native currency, or an ERC20, ERC721 or ERC1155 token",
  description:
    'NATIVE sends `amount` wei (a value transfer); ERC20 calls `transfer(to, amount)`; ERC721 `safeTransferFrom(sender, to, tokenId)`; ERC1155 `safeTransferFrom(sender, to, tokenId, amount, "")`. Refused before anything is signed when the sender lacks what it would send (`INSUFFICIENT_FUNDS`, `INSUFFICIENT_TOKEN_BALANCE`, `NOT_TOKEN_OWNER`, each naming the field) or the node\'s estimate says the token would revert. Recorded, broadcast and tracked as launches are: `wait=mined`, `Idempotency-Key`, webhooks, and without `privateKey` the `unsignedTransaction` to sign, taken back as `signedTransaction`.',
  write: TransferWrite,
  // Bitcoin: from a held wallet only (docs/custody.md), its own body and answer.
  alternative: {
    body: BitcoinTransferBody,
    answer: BitcoinTransfer,
    when: (raw) => typeof raw === "object" && raw !== null && (raw as { chain?: unknown }).chain === "bitcoin",
    send: (body, { service }, { apiKeyId, operationId }) => {
      const { network, sender, to, amount, feeRate } = body as z.infer<typeof BitcoinTransferBody>;
      return service.operations.sendBitcoin(
        { network, sender, to, amount, ...(feeRate !== undefined ? { feeRate } : {}) },
        { apiKeyId, id: operationId },
      );
    },
  },
  bodyExamples: {
    native: {
      summary: "1 ETH to Hardhat's second account, signed by the service (the example key is public: simulated chains only)",
      value: { ...EXAMPLE_PAIR, type: "NATIVE", to: EXAMPLE_RECIPIENT, amount: ONE_TOKEN, ...signedByService },
    },
    erc20: {
      summary: "1 GLD (the example account's first launch)",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        amount: ONE_TOKEN,
        ...signedByService,
      },
    },
    erc721: {
      summary: "Token #1 of an ERC721 (the example account's second launch)",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC721",
        contractAddress: EXAMPLE_NFT_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        tokenId: "1",
        ...signedByService,
      },
    },
    bitcoin: {
      summary: "0.001 BTC from a held wallet on testnet, at 5 sat/vB (docs/custody.md)",
      value: {
        chain: "bitcoin",
        network: "testnet",
        to: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
        amount: "100000",
        sender: "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
        feeRate: 5,
      },
    },
    prepare: {
      summary: "Prepare: no key, answers the unsigned transaction to sign",
      value: { ...EXAMPLE_PAIR, type: "NATIVE", to: EXAMPLE_RECIPIENT, amount: ONE_TOKEN, sender: EXAMPLE_ACCOUNT.address },
    },
  },
  answer: Transfer,
  prepared: PreparedTransfer,
  command: "transfer",
});

export const approveRoute = defineWriteRoute({
  path: "/tokens/approve",
  operationId: "approve",
  tag: "transfers",
  summary: "Let a spender move the sender's tokens: an ERC20 allowance, one ERC721 token, or all of them",
  description:
    "ERC20 calls `approve(spender, amount)` (0 revokes); ERC721 `approve(spender, tokenId)`, or `setApprovalForAll(spender, all)`; ERC1155 `setApprovalForAll(spender, all)`. An ERC721 token approval is refused before signing unless the sender holds the token or operates for its holder (`NOT_TOKEN_OWNER`). Recorded, signed locally or by the service, and tracked as transfers are. Read the result with GET /tokens/allowance.",
  write: ApproveWrite,
  bodyExamples: {
    erc20: {
      summary: "Hardhat's second account may spend 1 GLD of the example account",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        spender: EXAMPLE_RECIPIENT,
        amount: ONE_TOKEN,
        ...signedByService,
      },
    },
    operator: {
      summary: "Hardhat's second account may move every ERC721 token of the example account",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC721",
        contractAddress: EXAMPLE_NFT_CONTRACT,
        spender: EXAMPLE_RECIPIENT,
        all: true,
        ...signedByService,
      },
    },
    prepare: {
      summary: "Prepare: no key, answers the unsigned transaction to sign",
      value: {
        ...EXAMPLE_PAIR,
        type: "ERC20",
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        spender: EXAMPLE_RECIPIENT,
        amount: ONE_TOKEN,
        sender: EXAMPLE_ACCOUNT.address,
      },
    },
  },
  answer: Approval,
  prepared: PreparedApproval,
  command: "approve",
});

export const allowanceRoute = defineRoute({
  method: "get",
  paths: ["/tokens/allowance"],
  operationId: "readAllowance",
  tag: "transfers",
  summary: "What an owner lets a spender move: an ERC20 allowance, an ERC721 token's approval, operator approval",
  description:
    "ERC20 answers `allowance` (smallest units); ERC721 `isApprovedForAll`, and with `tokenId` whether spender is that token's approved address (`approved`); ERC1155 `isApprovedForAll`.",
  auth: true,
  query: AllowanceQuery,
  responses: { 200: { description: "The approvals", schema: Allowance }, ...errorResponses(400, 401, 422, 429, 502, 503, 504) },
  async handle({ query }, { service }) {
    return { body: await service.getAllowance(query) };
  },
});

export const tokenInfoRoute = defineRoute({
  method: "get",
  paths: ["/tokens/:contract"],
  operationId: "readToken",
  tag: "balances",
  summary: "A token's metadata: standard, name, symbol, decimals, supply, paused, and what it supports",
  description:
    "Read from the contract at once: its standard by ERC-165 (ERC721, ERC1155; an ERC20 declares none and is known by totalSupply() and balanceOf() answering), the views it answers, and `features`: by ERC-165 `enumerable`, `metadata`, `accessControl`, `royalties`; by probing views `capped`, `pausable`, `ownable`, `managed` (with `authority`, its AccessManager).",
  auth: true,
  pathParams: { contract: "The token contract" },
  query: PairQuery,
  responses: { 200: { description: "The token", schema: TokenInfo }, ...errorResponses(400, 401, 422, 429, 502, 503, 504) },
  async handle({ query, params }, { service }) {
    return { body: await service.getTokenInfo({ ...query, contractAddress: params.contract ?? "" }) };
  },
});

export const ownedTokensRoute = defineRoute({
  method: "get",
  paths: ["/tokens/:contract/owners/:owner/tokens"],
  operationId: "listOwnedTokens",
  tag: "balances",
  summary: "The ERC721 or ERC1155 token ids an address holds on a contract, paged",
  description:
    "Ascending, `limit` a page (default 100); for an ERC1155, `amounts` gives the amount of each id. `nextCursor` names the last id listed and never expires: the next page lists the ids above it the owner holds when it is read (an id gained below it since is on no later page). An ERC721Enumerable contract lists them itself; another ERC721, and every ERC1155 (the standard cannot enumerate), is searched through its transfer logs to the owner from `fromBlock`, each id checked at the block read (ownerOf, balanceOfBatch). Either way every id is read to order them, so an owner of more than 10 000 ids on one contract is answered `TOO_MANY_TOKEN_IDS`.",
  auth: true,
  pathParams: { contract: "The ERC721 or ERC1155 contract", owner: "The holder" },
  query: OwnedTokensQuery,
  responses: { 200: { description: "A page of token ids", schema: OwnedTokens }, ...errorResponses(400, 401, 422, 429, 502, 503, 504) },
  async handle({ query, params }, { service }) {
    return { body: await service.listOwnedTokens({ ...query, contractAddress: params.contract ?? "", owner: params.owner ?? "" }) };
  },
});
