import { Wallet } from "ethers";

import { API_ROUTES } from "../../src/http/routes/index.js";
import { TEST_API_KEY } from "./http-server.js";

// The hostile requests of the bad-input fuzz (test/integration/http/fuzz.test.ts), made from a seeded die: the same
// requests on every run for one seed. Most go through an HTTP client, to every route with plausible, hostile or
// incoherent values; some are written raw (bad JSON, wrong content types, broken framing).

const BODY_LIMIT = 64 * 1024;

/** mulberry32: small, fast and the same on every run for one seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Dice {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

// JSON the serializer cannot write from a JS value: numbers beyond double range, -0, and so on.
const RAW = (text: string) => `\u0001raw:${text}\u0001`;
const toJsonText = (value: unknown) => JSON.stringify(value).replace(/"\\u0001raw:(.*?)\\u0001"/g, "$1");

const keyOf = (index: number) => `0x${(index + 0x1000).toString(16).padStart(64, "0")}`;
// Senders that are never funded, so no launch or mint goes through; faucet targets are never senders.
const SENDERS = [0, 1, 2].map((index) => new Wallet(keyOf(index)));
const FAUCET_TARGETS = [10, 11, 12].map((index) => new Wallet(keyOf(index)).address);

const CHAINS = ["ethereum", "binance_smart_chain", "base", "polygon", "bitcoin", "Ethereum", "solana", ""];
const NETWORKS = ["mainnet", "sepolia", "holesky", "hoodi", "rinkeby", "testnet", "amoy", "fuji", "signet", "regtest", "goerli", ""];
const BITCOIN_ADDRESSES = [
  "1111111111111111111114oLvT2",
  "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
  "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080",
];
const EVM_ADDRESSES = [
  ...FAUCET_TARGETS,
  FAUCET_TARGETS[0]!.toLowerCase(),
  "0x0000000000000000000000000000000000000000",
  "0x1234",
  `0x${"g".repeat(40)}`,
];
const INTEGER_STRINGS = [
  "0",
  "1",
  "10",
  "1000000000000000000",
  ((1n << 256n) - 1n).toString(),
  (1n << 256n).toString(),
  "-1",
  "1.5",
  "1e18",
  " 7 ",
  "0x10",
  "9".repeat(200),
];
const TOKEN_TYPES = ["ERC20", "ERC721", "SERVICE_ERC20", "service_erc721", "ERC1155", "NATIVE", "native", ""];

const HOSTILE_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udc00y",
  "\ud83d\ude80",
  "\u202e\u2066",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "../../../etc/passwd",
  "%00",
  "%zz",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "${jndi:ldap://127.0.0.1/x}",
  "NaN",
  "Infinity",
  "-0",
  "null",
  "true",
  "\r\nSet-Cookie: x=1",
  "é".repeat(300),
  "x".repeat(5_000),
];
const HOSTILE_RAW_NUMBERS = [
  "0",
  "-1",
  "-0",
  "1.5",
  "1e400",
  "-1e400",
  "9007199254740993",
  "123456789012345678901234567890",
  "1e-400",
  "0.0000001",
];

function hostileValue(dice: Dice, depth = 0): unknown {
  switch (dice.int(depth > 2 ? 4 : 8)) {
    case 0:
      return dice.pick(HOSTILE_STRINGS);
    case 1:
      return RAW(dice.pick(HOSTILE_RAW_NUMBERS));
    case 2:
      return dice.pick([true, false, null]);
    case 3:
      return dice.pick(INTEGER_STRINGS);
    case 4:
      return [];
    case 5:
      return Array.from({ length: 1 + dice.int(3) }, () => hostileValue(dice, depth + 1));
    case 6:
      return {};
    default:
      return JSON.parse(
        `{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "x": ${toJsonText(hostileValue(dice, depth + 1))}}`,
      );
  }
}

const VALID_PAIRS = [
  ...["mainnet", "sepolia", "holesky", "hoodi", "rinkeby", "testnet"].map((network) => ({
    chain: "ethereum",
    network,
    address: FAUCET_TARGETS[0]!,
  })),
  ...["mainnet", "testnet"].map((network) => ({ chain: "binance_smart_chain", network, address: FAUCET_TARGETS[1]! })),
  { chain: "bitcoin", network: "mainnet", address: BITCOIN_ADDRESSES[0]! },
  { chain: "bitcoin", network: "testnet", address: BITCOIN_ADDRESSES[1]! },
  { chain: "bitcoin", network: "signet", address: BITCOIN_ADDRESSES[1]! },
  { chain: "bitcoin", network: "regtest", address: BITCOIN_ADDRESSES[2]! },
];

/** What one request's plausible values agree on, so that many get past the first checks to the deeper ones. */
interface Coherence {
  pair: (typeof VALID_PAIRS)[number];
  sender: Wallet;
  tokenType: "ERC20" | "ERC721" | "ERC1155" | "NATIVE";
}

/** A value the field accepts, in agreement with the request's other fields. */
function validValue(field: string, dice: Dice, coherent: Coherence): unknown {
  const evm = coherent.pair.chain !== "bitcoin";
  switch (field) {
    case "limit":
      return dice.pick(["1", "5", "100"]);
    case "cursor":
      return undefined;
    case "wait":
      return dice.chance(0.3) ? "mined" : undefined;
    case "addressType":
      return evm ? undefined : dice.pick(["p2wpkh", "p2tr", "p2pkh"]);
    case "amount":
    case "initialSupply":
      return dice.pick(["1", "1000", "1000000000000000000"]);
    case "tokenId":
      return coherent.tokenType === "ERC721" || coherent.tokenType === "ERC1155" ? dice.pick(["1", "7"]) : undefined;
    // A coherent body is signed by the service with the sender's key: no signature beside it.
    case "signedTransaction":
    case "totalSupply":
    case "fromBlock":
      return undefined;
    case "all":
      return dice.chance(0.3) ? dice.chance(0.5) : undefined;
    case "contractAddress":
      return coherent.tokenType === "NATIVE" ? undefined : plausibleValue(field, dice, coherent);
    case "uri":
      return dice.chance(0.5) ? "ipfs://x/1" : undefined;
    case "erc20TokenContractAddresses":
      return evm && dice.chance(0.3) ? SENDERS[0]!.address : undefined;
    default:
      return plausibleValue(field, dice, coherent);
  }
}

/** A value that might pass for the field. */
function plausibleValue(field: string, dice: Dice, coherent?: Coherence): unknown {
  switch (field) {
    case "chain":
      return coherent?.pair.chain ?? dice.pick(CHAINS);
    case "network":
      return coherent?.pair.network ?? dice.pick(NETWORKS);
    case "address":
      if (coherent) return coherent.pair.address;
      return dice.chance(0.3) ? dice.pick(BITCOIN_ADDRESSES) : dice.pick(EVM_ADDRESSES);
    case "sender":
      return (coherent?.sender ?? dice.pick(SENDERS)).address;
    case "privateKey":
      if (coherent) return coherent.sender.privateKey;
      return dice.chance(0.8)
        ? dice.pick(SENDERS).privateKey
        : dice.pick(["0x1234", keyOf(99), "L1aW4aubDFB7yfras2S1mN3bqg9nwySY8nkoLmJebSLD5BWv3ENZ"]);
    case "to":
    case "contractAddress":
    case "tokenAddress":
    case "spender":
    case "owner":
    case "minter":
    case "account":
      return dice.pick([...EVM_ADDRESSES, ...SENDERS.map((wallet) => wallet.address)]);
    case "erc20TokenContractAddresses":
      return dice.chance(0.5) ? dice.pick(EVM_ADDRESSES) : Array.from({ length: dice.int(60) }, () => dice.pick(EVM_ADDRESSES)).join(",");
    case "type":
      return coherent?.tokenType ?? dice.pick([...TOKEN_TYPES, "erc20", "erc721"]);
    case "token":
      if (coherent)
        return coherent.tokenType === "ERC20"
          ? { name: "Token", symbol: "TOK", initialSupply: "1000" }
          : { name: "Art", symbol: "ART", uri: "ipfs://x/" };
      return dice.chance(0.5)
        ? {
            name: dice.pick(["Token", "", "\u0000"]),
            symbol: dice.pick(["TOK", "x".repeat(40)]),
            decimals: dice.pick([18, 0, 37, -1, 1.5]),
            initialSupply: dice.pick(INTEGER_STRINGS),
          }
        : { name: "Art", symbol: "ART", uri: dice.pick(["ipfs://x/", "\ud800", "u".repeat(3_000)]) };
    case "amount":
    case "tokenId":
    case "initialSupply":
    case "totalSupply":
      return dice.pick(INTEGER_STRINGS);
    case "all":
      return dice.pick([true, false, "true", 1, null, "false"]);
    case "tokenIds":
    case "amounts":
      return Array.from({ length: dice.pick([0, 1, 2, 3, 51]) }, () => dice.pick(INTEGER_STRINGS));
    case "recipients":
      // A batch mint: its recipients each plausible or hostile, fewer or more than the bound.
      return Array.from({ length: dice.pick([0, 1, 2, 3, 50, 51]) }, () =>
        dice.chance(0.8)
          ? {
              to: plausibleValue("to", dice),
              ...(dice.chance(0.6) ? { amount: dice.pick(INTEGER_STRINGS) } : {}),
              ...(dice.chance(0.4) ? { tokenId: dice.pick(INTEGER_STRINGS) } : {}),
              ...(dice.chance(0.2) ? { uri: dice.pick(["a.json", "", "\ud800", "u".repeat(3_000)]) } : {}),
            }
          : hostileValue(dice),
      );
    case "fromBlock":
      return dice.pick(["0", "1", "-1", "1.5", "abc", "99999999999999999999", "1e3"]);
    case "limit":
      return dice.pick(["1", "20", "100", "101", "0", "-5", "1e3", "abc", "99999999999999999999"]);
    case "cursor":
      return dice.pick([
        "",
        "%00",
        "eyJ9",
        Buffer.from('["9999999999999999999","x"]').toString("base64url"),
        Buffer.from('["1","a\\u0000"]').toString("base64url"),
        "A".repeat(3_000),
      ]);
    case "wait":
      return dice.pick(["mined", "never", ""]);
    case "addressType":
      return dice.pick(["p2wpkh", "p2tr", "p2pkh", "p2sh", ""]);
    default:
      return dice.pick(HOSTILE_STRINGS);
  }
}

/**
 * The fields of an object schema, or of every option of a union (a launch, mint, transfer or approval body), through a
 * z.lazy (a write's documented body union is built on first use: http/schemas.ts).
 */
function fieldsOf(schema: unknown): string[] {
  const lazy = schema as { _zod?: { def?: { type?: string } }; unwrap?: () => unknown } | undefined;
  if (lazy?._zod?.def?.type === "lazy" && lazy.unwrap !== undefined) return fieldsOf(lazy.unwrap());
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (shape) return Object.keys(shape);
  const options = (schema as { options?: unknown[] } | undefined)?.options;
  return options ? [...new Set(options.flatMap(fieldsOf))] : [];
}

/**
 * The fields of a body or query: half the time all plausible and agreeing but
 * for one hostile field, otherwise each field independently plausible, hostile or missing.
 */
function fuzzedObject(fields: string[], dice: Dice): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const coherent = dice.chance(0.5)
    ? {
        pair: dice.pick(VALID_PAIRS),
        sender: dice.pick(SENDERS),
        tokenType: dice.pick(["ERC20", "ERC721", "ERC20", "ERC721", "ERC1155", "NATIVE"] as const),
      }
    : undefined;
  const target = coherent && fields.length > 0 && dice.chance(0.8) ? dice.pick(fields) : undefined;
  for (const field of fields) {
    if (coherent) {
      const value = field === target ? (dice.chance(0.8) ? hostileValue(dice) : undefined) : validValue(field, dice, coherent);
      if (value !== undefined) object[field] = value;
      continue;
    }
    if (dice.chance(0.1)) continue;
    object[field] = dice.chance(0.2) ? hostileValue(dice) : plausibleValue(field, dice);
  }
  if (dice.chance(0.15))
    object[dice.pick(["colour", "__proto__", "constructor", "hasOwnProperty", "x".repeat(300), "\u0000", "\ud800"])] = hostileValue(dice);
  return object;
}

const BAD_JSON = [
  '{"chain": "ethereum",',
  "{'chain': 'ethereum'}",
  "{",
  "]",
  "\u0000",
  "\ufeff{}",
  '{"a":1}{"b":2}',
  "NaN",
  "undefined",
  '{"a": 01}',
  '"\\ud800"',
  '{"a": "\\u00"}',
  "[".repeat(5_000),
];

const JSON_CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "Application/JSON"];
const OTHER_CONTENT_TYPES = [
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/vnd.api+json",
  "",
];

function encodeQueryValue(value: unknown, dice: Dice): string {
  if (dice.chance(0.05)) return dice.pick(["%zz", "%", "%E0%A4%A", "%00", "%ud800", "%C0%AF", "%FF%FE"]);
  // eslint-disable-next-line no-control-regex -- \u0001 marks a raw query value in the generated cases
  const text = typeof value === "string" ? value.replace(/^\u0001raw:(.*)\u0001$/, "$1") : toJsonText(value);
  return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "?"));
}

function queryString(fields: string[], dice: Dice, apiKey: string | undefined): string {
  const pairs: string[] = [];
  const object = fuzzedObject(fields, dice);
  for (const [key, value] of Object.entries(object)) {
    const name = encodeURIComponent(key.replace(/[\ud800-\udfff]/g, "?"));
    const values = Array.isArray(value) && dice.chance(0.5) ? value : [value];
    for (const item of values) pairs.push(`${name}=${encodeQueryValue(item, dice)}`);
    if (dice.chance(0.05)) pairs.push(`${name}=${encodeQueryValue(plausibleValue(key, dice), dice)}`);
    if (dice.chance(0.03)) pairs.push(`${name}[]=x`, `${name}[a][b]=y`);
  }
  if (apiKey !== undefined) pairs.push(`apiKey=${encodeURIComponent(apiKey)}`);
  if (dice.chance(0.02)) pairs.push(`pad=${"p".repeat(dice.pick([2_000, 8_000, 20_000]))}`);
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

const PATH_PARAMS = [
  `0x${"ab".repeat(32)}`,
  "0x12",
  "%zz",
  "%E0%A4%A",
  "%00",
  "..",
  "%2e%2e",
  "%2F",
  `address=${FAUCET_TARGETS[0]}`,
  FAUCET_TARGETS[1]!,
  "address=",
  "x".repeat(4_000),
  "%F0%9F%9A%80",
  "__proto__",
];

const WRONG_PREFIXES = ["/api/v2", "/api", "", "/API/V1", "//api/v1", "/api/v1/.", "/v1/../api/v1"];
const prefix = (dice: Dice) => (dice.chance(0.12) ? dice.pick(WRONG_PREFIXES) : dice.chance(0.7) ? "/api/v1" : "/v1");
const OTHER_PATHS = [
  "/health",
  "/openapi.json",
  "/docs",
  "/metrics",
  "/metrics?apiKey=%00",
  "/",
  "/favicon.ico",
  "/health/",
  "/docs/%zz",
  "/api/v1/",
  "/api/v1/nothing",
  "/%",
  "/%00",
  "/.env",
  `/${"a".repeat(9_000)}`,
];

export interface RequestSpec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Written straight to a socket: what an HTTP client library would refuse to send. */
  raw?: string;
}

function apiKeyChoice(dice: Dice): { header?: string; query?: string } {
  const roll = dice.int(20);
  if (roll < 16) return { header: TEST_API_KEY };
  if (roll < 17) return { query: dice.chance(0.7) ? TEST_API_KEY : "wrong" };
  if (roll < 18) return {};
  return { header: dice.pick(["wrong", "", " ", "x".repeat(2_000), `${TEST_API_KEY} `, "hts_0000"]) };
}

function bodyFor(fields: string[], dice: Dice): string {
  const roll = dice.int(20);
  if (roll === 0) return dice.pick(BAD_JSON);
  if (roll === 1) return toJsonText(hostileValue(dice));
  const object = fuzzedObject(fields, dice);
  if (dice.chance(0.03)) object.pad = "p".repeat(dice.chance(0.5) ? BODY_LIMIT - 200 : BODY_LIMIT + 1_000);
  return toJsonText(object);
}

function rawRequest(dice: Dice): RequestSpec {
  const host = "Host: 127.0.0.1\r\n";
  const key = `x-api-key: ${TEST_API_KEY}\r\n`;
  const raw = dice.pick([
    `GET /health HTTP/1.1\r\n${host}Bad Header: x\r\nConnection: close\r\n\r\n`,
    `GET /health HTTP/1.1\r\n${host}X-Nul: a\u0000b\r\nConnection: close\r\n\r\n`,
    `GET /api/v1/networks HTTP/1.1\r\n${host}${key}X-Big: ${"b".repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    `POST /api/v1/wallets HTTP/1.1\r\n${host}${key}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    `POST /api/v1/wallets HTTP/1.1\r\n${host}${key}Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\nConnection: close\r\n\r\n{}{}{}`,
    `POST /api/v1/wallets HTTP/1.1\r\n${host}${key}Content-Type: application/json\r\nContent-Length: -1\r\nConnection: close\r\n\r\n{}`,
    `GET http://evil.example/api/v1/networks HTTP/1.1\r\n${host}${key}Connection: close\r\n\r\n`,
    `GET * HTTP/1.1\r\n${host}Connection: close\r\n\r\n`,
    `G\u00c9T /health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`,
    `GET /api/v1/networks HTTP/1.0\r\n${key}\r\n`,
    `GET /api/v1/networks HTTP/9.9\r\n${host}Connection: close\r\n\r\n`,
    `GET /api/v1/tokens?cursor=\u00ff\u00fe HTTP/1.1\r\n${host}${key}Connection: close\r\n\r\n`,
    `GET /api/v1/transactions/\u00e9?chain=ethereum&network=sepolia HTTP/1.1\r\n${host}${key}Connection: close\r\n\r\n`,
    `POST /api/v1/faucet HTTP/1.1\r\n${host}${key}Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    `POST /api/v1/faucet HTTP/1.1\r\n${host}${key}Content-Type: application/json\r\nContent-Encoding: br, zstd\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    `\r\n\r\nGET /health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`,
  ]);
  return { method: "RAW", path: raw.slice(0, raw.indexOf(" HTTP/") + 1).trim(), headers: {}, raw };
}

export function makeRequest(dice: Dice): RequestSpec {
  if (dice.chance(0.03)) return rawRequest(dice);
  const apiKey = apiKeyChoice(dice);
  const headers: Record<string, string> = apiKey.header !== undefined ? { "x-api-key": apiKey.header } : {};
  if (dice.chance(0.08)) {
    const method = dice.pick(["GET", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]);
    const body = method === "POST" || method === "PUT" ? bodyFor(["chain", "network"], dice) : undefined;
    if (body !== undefined) headers["content-type"] = "application/json";
    return {
      method,
      path: `${dice.pick(OTHER_PATHS)}${queryString(["chain"], dice, apiKey.query)}`,
      headers,
      ...(body !== undefined ? { body } : {}),
    };
  }
  const route = dice.pick(API_ROUTES);
  const template = dice.pick(route.paths);
  const path = template.replace(/:[a-zA-Z]+/g, () => dice.pick(PATH_PARAMS));
  const method = dice.chance(0.95) ? route.method.toUpperCase() : dice.pick(["GET", "POST", "PUT", "DELETE", "HEAD"]);
  let body: string | undefined;
  if (method === "POST" || (method !== "HEAD" && dice.chance(0.03))) {
    body = bodyFor(fieldsOf(route.body), dice);
    const contentType = dice.chance(0.9) ? dice.pick(JSON_CONTENT_TYPES) : dice.pick(OTHER_CONTENT_TYPES);
    if (contentType !== "") headers["content-type"] = contentType;
    if (dice.chance(0.03)) headers["content-encoding"] = dice.pick(["gzip", "deflate", "br", "identity", "x-unknown"]);
  }
  if (route.idempotent && dice.chance(0.3))
    headers["idempotency-key"] = dice.pick(["k1", "k2", "", "x".repeat(300), `fuzz-${dice.int(50)}`]);
  // POST routes take optional query parameters; most callers send none.
  const queryFields = route.method === "post" && dice.chance(0.7) ? [] : fieldsOf(route.query);
  return {
    method,
    path: `${prefix(dice)}${path}${queryString(queryFields, dice, apiKey.query)}`,
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}
