import { Balances, BalanceQuery, CreateWalletBody, Wallet } from "../schemas.js";
import { defineRoute } from "../route.js";
import { EXAMPLE_PAIR } from "../examples.js";
import { errorResponses } from "./common.js";

/** `erc20TokenContractAddresses` may be repeated and each value may be a comma-separated list. */
export function splitAddressList(value: string | string[] | undefined): string[] {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return values
    .flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

export const createWalletRoute = defineRoute({
  method: "post",
  paths: ["/wallets"],
  operationId: "createWallet",
  tag: "wallets",
  summary: "Create a wallet",
  description: "A new address and its private key. The key is returned once and stored nowhere.",
  auth: true,
  body: CreateWalletBody,
  bodyExamples: {
    evm: { summary: "An Ethereum Sepolia wallet", value: { ...EXAMPLE_PAIR } },
    bitcoin: { summary: "A Bitcoin testnet wallet, Taproot", value: { chain: "bitcoin", network: "testnet", addressType: "p2tr" } },
  },
  responses: { 200: { description: "The new wallet", schema: Wallet }, ...errorResponses(400, 401, 429) },
  async handle({ body }, { service }) {
    return { body: service.createWallet(body) };
  },
});

export const readBalanceRoute = defineRoute({
  method: "get",
  paths: ["/wallets"],
  operationId: "readBalance",
  tag: "balances",
  summary: "Read the balances of an address",
  description: "Native balance, plus ERC20 balances for `erc20TokenContractAddresses`, in one batched read.",
  auth: true,
  query: BalanceQuery,
  responses: { 200: { description: "The balances", schema: Balances }, ...errorResponses(400, 401, 422, 429, 502, 503, 504) },
  async handle({ query }, { service }) {
    return {
      body: await service.getBalances({
        chain: query.chain,
        network: query.network,
        address: query.address,
        erc20TokenContractAddresses: splitAddressList(query.erc20TokenContractAddresses),
      }),
    };
  },
});
