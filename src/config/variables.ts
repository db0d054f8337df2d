import { z } from "zod/v4";

import { declaredChains, LOG_LEVELS, optionalSeconds, seconds, trueOrFalse, trustProxy, url, wholeNumber } from "./variable-values.js";

// The variables with one name each: name, type, default, meaning and which doors read them (environment.ts reads them;
// docs/reference/configuration.md is generated from them).

/** The ways into the package that read the environment. */
export const DOORS = {
  serve: "`npx hardhat serve`",
  createServer: "`createServer()` (`hardhat-token-service/server`)",
  tasks:
    "the chain tasks (`wallet:create`, `balance`, `faucet`, `token:launch`, `token:mint`, `token:transfer`, `token:speed-up`, `token:cancel`)",
  recordingTasks:
    "the tasks that record operations (`faucet`, `token:launch`, `token:mint`, `token:transfer`, `token:speed-up`, `token:cancel`)",
  signingTasks: "the signing tasks (`token:launch`, `token:mint`, `token:transfer`, `token:speed-up`, `token:cancel`)",
  apikeyCreate: "`npx hardhat apikey:create`",
  faultTask: "`npx hardhat chain:fault`",
  custodyTasks: "the keystore tasks (`custody:init`, `custody:backup`, `custody:restore`, `custody:passphrase`)",
  api: "`createTokenService()` (programmatic API)",
  verifyTask: "`npx hardhat token:verify`",
} as const;

export type Door = keyof typeof DOORS;

export interface VariableSpec<T = unknown> {
  /** The variable's name, or the pattern of a family's names (`TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>`). */
  name: string;
  /** The values it takes, for people. */
  type: string;
  /** What applies when it is unset (or empty), for people. */
  default: string;
  description: string;
  readBy: Door[];
  /** Its value may hold a credential: an error never quotes it. */
  secret?: boolean;
  /** A document (JSON): an error names the part at fault and quotes that, not the whole value. */
  structured?: boolean;
  /** Parses the value as set (undefined when unset or empty). */
  schema: z.ZodType<T, string | undefined>;
}

const variable = <T>(spec: VariableSpec<T>): VariableSpec<T> => spec;

const HTTP_SERVICE: Door[] = ["serve", "createServer"];
/** The doors that serve chains: the HTTP service, the chain tasks and the programmatic API. */
export const ALL_DOORS_WITH_CHAINS: Door[] = ["serve", "createServer", "tasks", "api"];

/** The doors that submit verifications to explorers (docs/tokens.md#verifying-a-token). */
const VERIFYING: Door[] = ["serve", "createServer", "verifyTask"];

/** Variables with one name each. */
export const VARIABLES = {
  DATABASE_URL: variable({
    name: "DATABASE_URL",
    type: "PostgreSQL URL (`postgres://user:password@host:5432/database`)",
    default: "unset: an embedded SQLite database in the data directory",
    description:
      "A PostgreSQL server for API keys, operation records, idempotency keys, rate limits and webhooks, shared by replicas of the service. The tasks that record operations record them there too, so that `serve` follows what they leave unfinished.",
    readBy: ["serve", "createServer", "recordingTasks", "verifyTask", "apikeyCreate"],
    secret: true,
    schema: url(["postgres:", "postgresql:"], "postgres://user:password@host:5432/database"),
  }),
  LOG_LEVEL: variable({
    name: "LOG_LEVEL",
    type: LOG_LEVELS.join(" | "),
    default: "info",
    description: "The level of the service's JSON log lines (pino) on stdout.",
    readBy: HTTP_SERVICE,
    schema: z
      .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })
      .optional()
      .transform((value) => value ?? "info"),
  }),
  TOKEN_SERVICE_API_KEYS: variable({
    name: "TOKEN_SERVICE_API_KEYS",
    type: "comma-separated keys",
    default: "none (only keys made with `apikey:create`)",
    description: "API keys accepted besides the stored ones.",
    readBy: HTTP_SERVICE,
    secret: true,
    schema: z.string().optional(),
  }),
  TOKEN_SERVICE_RATE_LIMIT: variable({
    name: "TOKEN_SERVICE_RATE_LIMIT",
    type: "whole number",
    default: "600",
    description: "Requests per window and API key; 0 disables the limit.",
    readBy: HTTP_SERVICE,
    schema: wholeNumber(600),
  }),
  TOKEN_SERVICE_RATE_WINDOW_SECONDS: variable({
    name: "TOKEN_SERVICE_RATE_WINDOW_SECONDS",
    type: "seconds > 0",
    default: "60",
    description: "The rate limit's window.",
    readBy: HTTP_SERVICE,
    schema: seconds(60, { allowZero: false }),
  }),
  TOKEN_SERVICE_AUTH_FAILURE_LIMIT: variable({
    name: "TOKEN_SERVICE_AUTH_FAILURE_LIMIT",
    type: "whole number",
    default: "10",
    description: "Wrong API keys one client address may send per window before it gets 429; 0 disables the limit.",
    readBy: HTTP_SERVICE,
    schema: wholeNumber(10),
  }),
  TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS: variable({
    name: "TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS",
    type: "seconds > 0",
    default: "300",
    description: "The window of the wrong-key limit.",
    readBy: HTTP_SERVICE,
    schema: seconds(300, { allowZero: false }),
  }),
  TOKEN_SERVICE_TRUST_PROXY: variable({
    name: "TOKEN_SERVICE_TRUST_PROXY",
    type: "hops | addresses",
    default: "off",
    description:
      "Behind reverse proxies, which ones to believe about the client's address (X-Forwarded-For), in Express's `trust proxy` forms: the number of proxies in front of the service (`1`), or their addresses and ranges, comma-separated (`10.0.0.5, 10.1.0.0/16`, or `loopback`, `linklocal`, `uniquelocal`). The wrong-key limit and the per-client connection limit count per client address. `true` (trust every hop, so any client could name any address) is refused.",
    readBy: HTTP_SERVICE,
    schema: trustProxy,
  }),
  TOKEN_SERVICE_MAX_CONNECTIONS: variable({
    name: "TOKEN_SERVICE_MAX_CONNECTIONS",
    type: "whole number",
    default: "512",
    description:
      "Open HTTP connections the service keeps at most; more are closed as they arrive. Keeps file descriptors for the store and the chain journals however many clients connect. 0: no limit.",
    readBy: HTTP_SERVICE,
    schema: wholeNumber(512),
  }),
  TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT: variable({
    name: "TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT",
    type: "whole number",
    default: "128",
    description:
      "Open HTTP connections one client address keeps at most; more are answered 429 TOO_MANY_CONNECTIONS and closed. Connections from a trusted proxy (`TOKEN_SERVICE_TRUST_PROXY`) are not counted per client. 0: no limit.",
    readBy: HTTP_SERVICE,
    schema: wholeNumber(128),
  }),
  TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: variable({
    name: "TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS",
    type: "seconds > 0",
    default: "10",
    description: "Time a client has to send its request headers (then 408 and the connection closed).",
    readBy: HTTP_SERVICE,
    schema: seconds(10, { allowZero: false }),
  }),
  TOKEN_SERVICE_BODY_TIMEOUT_SECONDS: variable({
    name: "TOKEN_SERVICE_BODY_TIMEOUT_SECONDS",
    type: "seconds > 0, at least the headers timeout",
    default: "30",
    description: "Time a client has to send its whole request, headers and body.",
    readBy: HTTP_SERVICE,
    schema: seconds(30, { allowZero: false }),
  }),
  TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS: variable({
    name: "TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS",
    type: "seconds",
    default: "10",
    description: "On SIGTERM, how long in-flight requests may finish before their connections are closed.",
    readBy: HTTP_SERVICE,
    schema: seconds(10, { allowZero: true }),
  }),
  TOKEN_SERVICE_HEALTH_CACHE_SECONDS: variable({
    name: "TOKEN_SERVICE_HEALTH_CACHE_SECONDS",
    type: "seconds",
    default: "5",
    description: "How long /health reuses a probe of the database and the nodes; 0 probes on every request.",
    readBy: HTTP_SERVICE,
    schema: seconds(5, { allowZero: true }),
  }),
  TOKEN_SERVICE_CONFIRMATIONS: variable({
    name: "TOKEN_SERVICE_CONFIRMATIONS",
    type: "whole number ≥ 1",
    default: "1",
    description: "Blocks on top of (and including) an operation's block before it counts as mined.",
    readBy: HTTP_SERVICE,
    schema: wholeNumber(1, 1),
  }),
  TOKEN_SERVICE_DROP_AFTER_SECONDS: variable({
    name: "TOKEN_SERVICE_DROP_AFTER_SECONDS",
    type: "seconds > 0",
    default: "600",
    description: "How long a transaction the node lost is sent again before its operation is `dropped`.",
    readBy: HTTP_SERVICE,
    schema: seconds(600, { allowZero: false }),
  }),
  TOKEN_SERVICE_REORG_WATCH_SECONDS: variable({
    name: "TOKEN_SERVICE_REORG_WATCH_SECONDS",
    type: "seconds",
    default: "3600",
    description: "How long a mined operation is watched for a reorganization that takes it out of the chain.",
    readBy: HTTP_SERVICE,
    schema: seconds(3600, { allowZero: true }),
  }),
  TOKEN_SERVICE_NODE_BEHIND_GRACE_SECONDS: variable({
    name: "TOKEN_SERVICE_NODE_BEHIND_GRACE_SECONDS",
    type: "seconds",
    default: "30",
    description:
      "How long a mined operation's block may be missing from the node before it counts as taken out of the chain: a node behind the others (one of a provider's load balancer) has no block at that height yet.",
    readBy: HTTP_SERVICE,
    schema: seconds(30, { allowZero: true }),
  }),
  TOKEN_SERVICE_LEASE_SECONDS: variable({
    name: "TOKEN_SERVICE_LEASE_SECONDS",
    type: "seconds > 0",
    default: "30",
    description: "How long a replica holds an operation it follows before another may take it over.",
    readBy: HTTP_SERVICE,
    schema: seconds(30, { allowZero: false }),
  }),
  TOKEN_SERVICE_PREPARED_TTL_SECONDS: variable({
    name: "TOKEN_SERVICE_PREPARED_TTL_SECONDS",
    type: "seconds > 0",
    default: "120",
    description: "How long a prepared (unsigned) launch or mint keeps its nonce reserved for the sender to sign it.",
    readBy: HTTP_SERVICE,
    schema: seconds(120, { allowZero: false }),
  }),
  TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS: variable({
    name: "TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS",
    type: "seconds > 0",
    default: "the wait timeout plus 30",
    description: "How long a request holds its Idempotency-Key before a retry may settle it (after its process died).",
    readBy: HTTP_SERVICE,
    schema: optionalSeconds,
  }),
  TOKEN_SERVICE_IDEMPOTENCY_RETENTION_HOURS: variable({
    name: "TOKEN_SERVICE_IDEMPOTENCY_RETENTION_HOURS",
    type: "hours > 0",
    default: "24",
    description: "How long a finished Idempotency-Key replays its answer.",
    readBy: HTTP_SERVICE,
    // Read as seconds are, then scaled: hours in milliseconds.
    schema: seconds(24, { allowZero: false }).transform((value) => value * 3600),
  }),
  TOKEN_SERVICE_METRICS_PUBLIC: variable({
    name: "TOKEN_SERVICE_METRICS_PUBLIC",
    type: "true | false",
    default: "false",
    description: "`GET /metrics` answers without an API key (for a scraper on a private network).",
    readBy: HTTP_SERVICE,
    schema: trueOrFalse,
  }),
  TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: variable({
    name: "TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS",
    type: "true | false",
    default: "false",
    description: "Accept webhook URLs on private, loopback and link-local addresses.",
    readBy: HTTP_SERVICE,
    schema: trueOrFalse,
  }),
  TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: variable({
    name: "TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS",
    type: "seconds > 0",
    default: "10",
    description: "How long one webhook delivery may take before it counts as failed.",
    readBy: HTTP_SERVICE,
    schema: seconds(10, { allowZero: false }),
  }),
  TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS: variable({
    name: "TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS",
    type: "seconds",
    default: "86400",
    description: "How long a delivery is retried (with backoff) before it is `failed`.",
    readBy: HTTP_SERVICE,
    schema: seconds(86_400, { allowZero: true }),
  }),
  TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS: variable({
    name: "TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS",
    type: "seconds > 0",
    default: "5",
    description: "The first retry's delay; each next one doubles, up to an hour.",
    readBy: HTTP_SERVICE,
    schema: seconds(5, { allowZero: false }),
  }),
  TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: variable({
    name: "TOKEN_SERVICE_WEBHOOK_POLL_SECONDS",
    type: "seconds > 0",
    default: "1",
    description: "How often the delivery worker looks for deliveries other replicas queued.",
    readBy: HTTP_SERVICE,
    schema: seconds(1, { allowZero: false }),
  }),
  TOKEN_SERVICE_ETHERSCAN_API_KEY: variable({
    name: "TOKEN_SERVICE_ETHERSCAN_API_KEY",
    type: "an Etherscan API key",
    default: "unset: verification on Etherscan is refused (`EXPLORER_NOT_CONFIGURED`)",
    description:
      "The key verifications on Etherscan are submitted with (`POST /tokens/{address}/verify`, `token:verify`): one key of Etherscan's API v2 serves every chain it covers.",
    readBy: VERIFYING,
    secret: true,
    schema: z.string().trim().optional(),
  }),
  TOKEN_SERVICE_ETHERSCAN_API_URL: variable({
    name: "TOKEN_SERVICE_ETHERSCAN_API_URL",
    type: "http(s) URL",
    default: "https://api.etherscan.io/v2/api",
    description: "Etherscan's API v2 URL, to use another (a proxy, a stand-in); every chain is named by `chainid=`.",
    readBy: VERIFYING,
    schema: url(["http:", "https:"], "https://api.etherscan.io/v2/api"),
  }),
  TOKEN_SERVICE_SOURCIFY_API_URL: variable({
    name: "TOKEN_SERVICE_SOURCIFY_API_URL",
    type: "http(s) URL",
    default: "https://sourcify.dev/server",
    description: "The Sourcify server verifications are submitted to (its API v2), to use another instance than sourcify.dev's.",
    readBy: VERIFYING,
    schema: url(["http:", "https:"], "https://sourcify.dev/server"),
  }),
  TOKEN_SERVICE_VERIFY_POLL_SECONDS: variable({
    name: "TOKEN_SERVICE_VERIFY_POLL_SECONDS",
    type: "seconds > 0",
    default: "5",
    description: "How long a pending verification waits before the explorer is asked about it again.",
    readBy: VERIFYING,
    schema: seconds(5, { allowZero: false }),
  }),
  TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS: variable({
    name: "TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS",
    type: "seconds > 0",
    default: "600",
    description:
      "How long after its request a verification may stay `pending` (in the explorer's queue, or not seen by it yet): then it is `failed`, its `explorerMessage` saying so with the explorer's last words.",
    readBy: VERIFYING,
    schema: seconds(600, { allowZero: false }),
  }),
  TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD: variable({
    name: "TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD",
    type: "whole number ≥ 1",
    default: "3",
    description:
      "Failures in a row (no connection, a timeout, HTTP 429 or 5xx) after which a live pair's endpoint is skipped for the cool-down, while the pair has others.",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: wholeNumber(3, 1),
  }),
  TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES: variable({
    name: "TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES",
    type: "whole number ≥ 0",
    default: "0",
    description:
      "How many journal entries a simulated chain writes between checkpoints of its state (every account's nonce, balance, code and storage, beside its journal), for example 1000: a start loads the checkpoint and replays only the entries after it; the blocks below it come back empty (no old transaction, receipt or log, so owned ERC1155 and non-enumerable ERC721 ids read from logs miss those moved below it). 0, the default, writes none (a start replays the whole journal).",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: wholeNumber(0, 0),
  }),
  TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS: variable({
    name: "TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS",
    type: "seconds > 0",
    default: "30",
    description:
      "How long a failing endpoint is skipped; then one request tries it again (half-open), after its chain id is checked again, and it is back in use if that answers.",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: seconds(30, { allowZero: false }),
  }),
  TOKEN_SERVICE_CHAINS: variable({
    name: "TOKEN_SERVICE_CHAINS",
    type: 'JSON: `{"<chain>": {"nativeSymbol": "ETH", "nativeDecimals": 18, "rollup": "op-stack", "networks": {"<network>": {"chainId": 59144}}}}`',
    default: "none: the built-in chains only",
    description:
      "EVM chains besides the built-in ones, for a deployment without a Hardhat config change (docs/chains/custom.md). `nativeDecimals` defaults to 18; `rollup` (`op-stack` or `arbitrum`) is optional: `op-stack` counts the L1 data fee in the funds check. Each pair is simulated unless `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>` gives its endpoint. A chain declared here replaces one of the same name in `tokenService.chains`; a built-in name, a chain id another pair has, or a bad field is refused, naming it.",
    readBy: ALL_DOORS_WITH_CHAINS,
    structured: true,
    schema: declaredChains,
  }),
  TOKEN_SERVICE_SIMULATED_CHAINS: variable({
    name: "TOKEN_SERVICE_SIMULATED_CHAINS",
    type: "on | off",
    default: "on",
    description: "off: EVM pairs without an endpoint are not served, instead of simulated in this process (for replicas).",
    readBy: HTTP_SERVICE,
    schema: z
      .enum(["on", "off"], { error: "must be on or off" })
      .optional()
      .transform((value) => value !== "off"),
  }),
  TOKEN_SERVICE_CHAIN_FAULTS: variable({
    name: "TOKEN_SERVICE_CHAIN_FAULTS",
    type: "on | off",
    default: "off",
    description:
      "on: simulated chains can be told to misbehave (fee spikes, stalls, dropped transactions, reorgs, failing calls) through `/api/v1/chains/{chain}/{network}/faults` and `npx hardhat chain:fault`, to test a client's handling (see docs/faults.md). Any API key may then disturb every client's chain: for a service of your own, never a shared one. Live pairs are never affected.",
    readBy: HTTP_SERVICE,
    schema: z
      .enum(["on", "off"], { error: "must be on or off" })
      .optional()
      .transform((value) => value === "on"),
  }),
  TOKEN_SERVICE_ALLOW_PRIVATE_KEYS: variable({
    name: "TOKEN_SERVICE_ALLOW_PRIVATE_KEYS",
    type: "true | false",
    default: "true",
    description:
      "false is the production switch: no private key crosses the HTTP API. A `privateKey` in any request body (a write, an import) answers `403 PRIVATE_KEYS_DISABLED` before anything is read of it, and `POST /api/v1/wallets` makes held wallets only (`custody` omitted means `service`; `caller` is refused). Writes are then signed by held wallets (docs/custody.md) or by their callers (prepare, sign, submit).",
    readBy: HTTP_SERVICE,
    schema: z
      .enum(["true", "false"], { error: "must be true or false" })
      .optional()
      .transform((value) => value !== "false"),
  }),
  TOKEN_SERVICE_SIGNER: variable({
    name: "TOKEN_SERVICE_SIGNER",
    type: "local-keystore | aws-kms",
    default: "local-keystore",
    description:
      "Where new held wallets' keys are made and kept: the service's local keystore (encrypted under TOKEN_SERVICE_KEYSTORE_PASSPHRASE), or AWS KMS (`ECC_SECG_P256K1` keys made with `CreateKey`, signing with `Sign`; the key never leaves KMS; needs TOKEN_SERVICE_AWS_KMS_REGION, and credentials from `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` or the AWS SDK's default chain). Imported keys stay in the local keystore either way. docs/custody.md.",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: z
      .enum(["local-keystore", "aws-kms"], { error: "must be local-keystore or aws-kms" })
      .optional()
      .transform((value) => value ?? "local-keystore"),
  }),
  TOKEN_SERVICE_AWS_KMS_REGION: variable({
    name: "TOKEN_SERVICE_AWS_KMS_REGION",
    type: "AWS region (`eu-west-1`)",
    default: "unset (required with TOKEN_SERVICE_SIGNER=aws-kms)",
    description: "The AWS region of the KMS keys held wallets are made with (TOKEN_SERVICE_SIGNER=aws-kms).",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "must be an AWS region like eu-west-1")
      .optional(),
  }),
  TOKEN_SERVICE_AWS_KMS_ENDPOINT: variable({
    name: "TOKEN_SERVICE_AWS_KMS_ENDPOINT",
    type: "http(s) URL",
    default: "unset: the region's public KMS endpoint",
    description: "Another KMS endpoint than the region's: a VPC interface endpoint (TOKEN_SERVICE_SIGNER=aws-kms).",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: url(["http:", "https:"], "https://kms.eu-west-1.amazonaws.com"),
  }),
  TOKEN_SERVICE_KEYSTORE_PASSPHRASE: variable({
    name: "TOKEN_SERVICE_KEYSTORE_PASSPHRASE",
    type: "text, at least 12 characters",
    default: "unset: the keystore is locked",
    description:
      "Unlocks the service's keystore, where held wallets' keys are kept encrypted (scrypt, Web3 Secret Storage v3; docs/custody.md). Set, and no keystore in the store yet: the first held wallet makes one under it. Unset, or one that does not open the keystore: writes from held wallets answer `503 KEYSTORE_LOCKED` and everything else works. `serve` says at start whether the keystore is unlocked. Never logged, never stored.",
    readBy: ALL_DOORS_WITH_CHAINS,
    secret: true,
    schema: z.string().min(12, "must be at least 12 characters (a long random passphrase)").optional(),
  }),
} as const;

export type VariableName = keyof typeof VARIABLES;
export type ValueOf<N extends VariableName> = (typeof VARIABLES)[N] extends VariableSpec<infer T> ? T : never;
export type EnvironmentValues = { [N in VariableName]: ValueOf<N> };
