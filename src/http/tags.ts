/** The groups of /openapi.json (and of /docs), in the order /docs shows them. */
export const API_TAGS = [
  { name: "wallets", description: "New addresses and their private keys (returned once, stored nowhere)" },
  { name: "balances", description: "Native, ERC20 and ERC721 balances of an address, the token ids it holds, and a token's metadata" },
  {
    name: "tokens",
    description:
      "Launch ERC20, ERC721 and ERC1155 contracts, mint, burn, pause, grant and revoke roles, transfer ownership: signed by the service with a `privateKey` in the body, or prepared (no key) and submitted as a `signedTransaction` signed by the caller",
  },
  {
    name: "transfers",
    description:
      "Send native currency and ERC20, ERC721 and ERC1155 tokens, approve spenders and read allowances: signed by the service or by the caller, recorded and tracked as launches are",
  },
  {
    name: "operations",
    description:
      "The records of the writes made with your API key: launches, mints, transfers, approvals, burns, pauses, role and ownership changes, faucet grants",
  },
  { name: "transactions", description: "A transaction's status on a chain" },
  { name: "faucet", description: "Native currency for an address on a simulated chain or bitcoin regtest" },
  { name: "networks", description: "The chain/network pairs the service serves, simulated or live" },
  {
    name: "webhooks",
    description: "Subscribe a URL to the state changes of your API key's operations, and to what its chain subscriptions find",
  },
  {
    name: "subscriptions",
    description:
      "Chain notifications: value moving to or from an address, or a contract's events, sent by anyone; delivered to your webhooks once confirmed, removed on a reorg, and listed for pulling",
  },
  {
    name: "faults",
    description:
      "Make a simulated chain misbehave on purpose (fee spikes, stalls, dropped transactions, reorgs, failing node calls), to test how a client copes. Only with TOKEN_SERVICE_CHAIN_FAULTS=on, never on live networks",
  },
  { name: "service", description: "Liveness and readiness, without an API key" },
  {
    name: "v1 aliases",
    description:
      "Every /api/v1 operation also answers under /v1 (without /api): the same operation, the same parameters and answers. Listed here so that clients generated from this document know them; /api/v1 is the canonical form.",
  },
  { name: "webhook events", description: "What the service POSTs to a subscribed URL" },
] as const;

export type ApiTag = (typeof API_TAGS)[number]["name"];
