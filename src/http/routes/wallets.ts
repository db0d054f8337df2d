import { BalanceQuery, Balances, CreateWalletBody, Wallet } from "../wallet-schemas.js";
import { defineRoute } from "../route.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_PAIR } from "../examples.js";
import { HeldWallet, HeldWalletList, HeldWalletQuery, ImportWalletBody, WalletPolicy, WalletPolicyBody } from "../custody-schemas.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
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
  description:
    'A new address and its private key: the key is returned once and stored nowhere. With `"custody": "service"`, a held wallet instead (201): the service keeps its key encrypted and signs the writes that name it as `sender` without a key; only your API key sees and uses it (docs/custody.md).',
  auth: true,
  body: CreateWalletBody,
  bodyExamples: {
    evm: { summary: "An Ethereum Sepolia wallet", value: { ...EXAMPLE_PAIR } },
    bitcoin: { summary: "A Bitcoin testnet wallet, Taproot", value: { chain: "bitcoin", network: "testnet", addressType: "p2tr" } },
    held: { summary: "A held wallet: the service keeps its key", value: { ...EXAMPLE_PAIR, custody: "service" } },
  },
  responses: {
    200: { description: "The new wallet, with its key", schema: Wallet },
    201: { description: "The new held wallet (no key)", schema: HeldWallet },
    ...errorResponses(400, 401, 429, 503),
  },
  async handle({ body, apiKeyId }, { service, allowPrivateKeys }) {
    // With the production switch, a wallet is held unless a key is asked for: then refused, as any key in an answer.
    const custody = body.custody ?? (allowPrivateKeys ? "caller" : "service");
    if (custody === "caller" && !allowPrivateKeys) {
      throw new TokenServiceError(
        ErrorCode.PRIVATE_KEYS_DISABLED,
        'this service answers no private key (TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false): create a held wallet ("custody": "service")',
        { field: "custody" },
      );
    }
    if (custody === "caller") return { body: service.createWallet(body) };
    if (body.addressType !== undefined && body.addressType !== "p2wpkh") {
      throw invalidArgument(
        "addressType",
        "a held wallet on bitcoin is native SegWit (p2wpkh, BIP-84); on other chains addressType does not apply",
      );
    }
    return { status: 201, body: await service.custody.create({ apiKeyId }, body.chain, body.network) };
  },
});

export const importWalletRoute = defineRoute({
  method: "post",
  paths: ["/wallets/import"],
  operationId: "importWallet",
  tag: "wallets",
  summary: "Hold a key you have: a held wallet from its private key",
  description:
    "The service keeps the key encrypted under its keystore's passphrase and signs with it; the answer, and every later one, holds no key. The keystore must be unlocked (`TOKEN_SERVICE_KEYSTORE_PASSPHRASE`).",
  auth: true,
  body: ImportWalletBody,
  bodyExamples: { evm: { summary: "Hold a Sepolia key", value: { ...EXAMPLE_PAIR, privateKey: EXAMPLE_ACCOUNT.privateKey } } },
  responses: { 201: { description: "The held wallet (no key)", schema: HeldWallet }, ...errorResponses(400, 401, 409, 429, 503) },
  async handle({ body, apiKeyId }, { service }) {
    return { status: 201, body: await service.custody.import({ apiKeyId }, body.chain, body.network, body.privateKey) };
  },
});

export const listHeldWalletsRoute = defineRoute({
  method: "get",
  paths: ["/wallets/held"],
  operationId: "listHeldWallets",
  tag: "wallets",
  summary: "Your API key's held wallets",
  description: "Newest first; `chain` (and `network`) narrow the list. Pass `nextCursor` as `cursor` for the next page.",
  auth: true,
  query: HeldWalletQuery,
  responses: { 200: { description: "A page of held wallets", schema: HeldWalletList }, ...errorResponses(400, 401, 429) },
  async handle({ query, apiKeyId }, { service }) {
    return {
      body: await service.custody.list(
        { apiKeyId },
        {
          limit: query.limit ?? 20,
          ...(query.chain !== undefined ? { chain: query.chain } : {}),
          ...(query.network !== undefined ? { network: query.network } : {}),
          ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
        },
      ),
    };
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

const ADDRESS = { address: "The held wallet's address" };

export const putWalletPolicyRoute = defineRoute({
  method: "put",
  paths: ["/wallets/:address/policy"],
  operationId: "putWalletPolicy",
  tag: "wallets",
  summary: "Set a held wallet's policy: what the service signs for it",
  description:
    "Replaces the policy (every rule optional; `{}` removes them all). A write outside it answers 403 `POLICY_DENIED` naming the rule, before anything is signed or a nonce is taken. Amounts in smallest units; `maxValuePerDay` counts the native value of the writes signed each UTC day, on each pair, across replicas and restarts.",
  auth: true,
  pathParams: ADDRESS,
  body: WalletPolicyBody,
  bodyExamples: {
    capped: {
      summary: "At most 0.1 ETH a transaction and 1 ETH a day, on Sepolia only",
      value: { maxValuePerTransaction: "100000000000000000", maxValuePerDay: "1000000000000000000", networks: ["ethereum/sepolia"] },
    },
  },
  responses: { 200: { description: "The policy now", schema: WalletPolicy }, ...errorResponses(400, 401, 404, 429) },
  async handle({ params, body, apiKeyId }, { service }) {
    return { body: await service.custody.policies.set({ apiKeyId }, params.address, body as Record<string, unknown>) };
  },
});

export const getWalletPolicyRoute = defineRoute({
  method: "get",
  paths: ["/wallets/:address/policy"],
  operationId: "getWalletPolicy",
  tag: "wallets",
  summary: "A held wallet's policy",
  description: "`{}` when none is set.",
  auth: true,
  pathParams: ADDRESS,
  responses: { 200: { description: "The policy", schema: WalletPolicy }, ...errorResponses(400, 401, 404, 429) },
  async handle({ params, apiKeyId }, { service }) {
    return { body: await service.custody.policies.get({ apiKeyId }, params.address) };
  },
});
