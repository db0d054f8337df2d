/**
 * Every error code the service, its tasks and its records use, with the HTTP status it is answered with and what it
 * means: the one source of truth. The HTTP status mapping (src/http/http-errors.ts), the error responses of
 * /openapi.json and docs/reference/errors.md (`npm run generate:docs`) are generated from it, and a test checks that
 * every code used in src/ is here. Clients may branch on codes; messages are for people.
 */

/** Who raises a code. */
export type ErrorSource =
  /** The core: thrown as TokenServiceError by the programmatic API, the tasks and the HTTP service alike. */
  | "core"
  /** The HTTP layer only (authentication, limits, malformed requests). */
  | "http"
  /** Only found in a stored operation's `error`: the outcome of a transaction after it was accepted. */
  | "record";

export interface ErrorDescriptor {
  /** The status of an HTTP answer with this code; null for a code only stored in operation records. */
  httpStatus: number | null;
  /** A one-line summary (the OpenAPI error responses list it). */
  title: string;
  /** When the code is given, in full (the reference page shows it). */
  description: string;
  source: ErrorSource;
  /** Also stored as an operation's `error` when a launch, mint or grant ends badly. */
  stored?: boolean;
}

export const ERROR_CATALOG = {
  INVALID_ARGUMENT: {
    httpStatus: 400,
    source: "core",
    title: "A field is missing, has the wrong type or breaks a rule",
    description:
      "A field is missing, has the wrong type or breaks a rule (uint256 range, `initialSupply` > `totalSupply`, unknown field, more than 50 contracts, a query `chain` that disagrees with the body, a text with NUL or an unpaired surrogate, a faucet grant past the uint256 balance, a `cursor` this service did not return, a webhook `url` that is not http(s), carries credentials or targets a private address, an unknown webhook event, a `signedTransaction` that is not a signed transaction or comes with a `privateKey`, an unknown token option, a royalty over 10000 basis points, a `salt` that is not 32-byte hex, a mint's `recipients` empty or over 50 or mixing chosen and next free ERC721 ids, a mint `amount` of 0). `field` names it (`recipients[2].to` for a batch's recipient).",
  },
  INVALID_ADDRESS: {
    httpStatus: 400,
    source: "core",
    title: "Not an address of that chain and network",
    description: "Not an address of that chain and network (bad checksum, a `tb1` address on regtest or mainnet).",
  },
  INVALID_PRIVATE_KEY: {
    httpStatus: 400,
    source: "core",
    title: "Not a 32-byte hex private key",
    description: "The private key is not a 32-byte hex key. The message never quotes it.",
  },
  UNSUPPORTED_CHAIN: {
    httpStatus: 400,
    source: "core",
    title: "Unknown chain",
    description: "An unknown `chain`; the message lists the allowed ones.",
  },
  UNSUPPORTED_NETWORK: {
    httpStatus: 400,
    source: "core",
    title: "Unknown network of that chain",
    description:
      "An unknown `network` for that chain; the message lists the allowed ones. From a task, also a Hardhat `--network` whose chain id is none of the service's pairs (the message shows how to declare its chain: docs/chains/custom.md).",
  },
  UNSUPPORTED_OPERATION: {
    httpStatus: 400,
    source: "core",
    title: "The chain cannot do that",
    description: "The operation does not exist on that chain, e.g. a token launch on `bitcoin`.",
  },
  MALFORMED_JSON: {
    httpStatus: 400,
    source: "http",
    title: "The body is not valid JSON",
    description: "The body is not valid JSON, or could not be read.",
  },
  MALFORMED_REQUEST: {
    httpStatus: 400,
    source: "http",
    title: "Not valid HTTP/1.1, or a bad percent-encoding in the path",
    description: "Not valid HTTP/1.1 (a bad header byte, broken chunked encoding), or a path with an invalid percent-encoding.",
  },
  UNAUTHORIZED: {
    httpStatus: 401,
    source: "http",
    title: "Missing or wrong API key",
    description:
      "No API key where the service reads one (the `x-api-key` header or the `apiKey` query parameter), or one the service does not know. The message says where the key goes and how to make one (`npx hardhat apikey:create`). A key sent another way is named as what it is, in `field`: an `Authorization` header (`authorization`; Bearer is not read), or a query parameter spelt otherwise (`apikey`, `api_key`). The key itself is never repeated.",
  },
  NOT_FOUND: {
    httpStatus: 404,
    source: "http",
    title: "No such route, operation or webhook",
    description: "No such route, or no operation or webhook with that id for your API key (another key's records do not exist for you).",
  },
  METHOD_NOT_ALLOWED: {
    httpStatus: 405,
    source: "http",
    title: "The route takes another method",
    description:
      "The path is a route, but not for this method (`GET /api/v1/tokens/mint`: a mint is a `POST`). The `Allow` header and the message name the methods it takes. A fixed path wins over a path with a parameter: `GET /api/v1/tokens/mint` is not read as a token contract named `mint`.",
  },
  TRANSACTION_NOT_FOUND: {
    httpStatus: 404,
    source: "core",
    title: "The node knows no transaction with that hash",
    description: "The node knows no transaction with that hash.",
  },
  HELD_WALLET_NOT_FOUND: {
    httpStatus: 404,
    source: "core",
    title: "No held wallet at that address for your API key",
    description: "No held wallet at that address for your API key (another key's held wallets do not exist for you).",
  },
  CHAIN_FAULTS_OFF: {
    httpStatus: 404,
    source: "core",
    title: "Chain faults are off",
    description:
      "A chain fault was asked for (`/api/v1/chains/{chain}/{network}/faults`, `chain:fault`, `service.chainFaults`) while faults are off: start `serve` with `TOKEN_SERVICE_CHAIN_FAULTS=on` (the programmatic API: `chainFaults: true`). Off by default; never on a shared service.",
  },
  OPERATION_NOT_FOUND: {
    httpStatus: 404,
    source: "core",
    title: "No operation with that id",
    description: "A speed-up or cancel (`service.operations.speedUp`, `cancel`, the tasks) named an operation id the store does not hold.",
  },
  LAUNCH_NOT_FOUND: {
    httpStatus: 404,
    source: "core",
    title: "No launch of that contract with this API key on the pair",
    description:
      "`GET /tokens/{address}/verification` or an upgrade (`POST /tokens/upgrade`) named a contract address that no launch made with this API key deployed on the given chain and network. Only the service's own launches are answered: it knows their sources.",
  },
  VERIFICATION_UNAVAILABLE: {
    httpStatus: 409,
    source: "core",
    title: "The launch's verification input cannot be given",
    description:
      "The launch exists but its creation code is not known yet (a prepared launch not submitted), or it does not start with a contract this version of the service ships (a launch made by an older version whose contracts changed since). `details.reason` says which.",
  },
  VERIFICATION_NOT_FOUND: {
    httpStatus: 404,
    source: "core",
    title: "No verification with that id for your API key",
    description: "`GET /verifications/{id}` named no verification record of your API key (another key's do not exist for you).",
  },
  EXPLORER_NOT_CONFIGURED: {
    httpStatus: 422,
    source: "core",
    title: "The explorer is not configured for that pair",
    description:
      "A verification asked for an explorer the service has no key or URL for: Etherscan without `TOKEN_SERVICE_ETHERSCAN_API_KEY`, Blockscout without the pair's `TOKEN_SERVICE_BLOCKSCOUT_<CHAIN>_<NETWORK>`. `details.variable` names what to set.",
  },
  SIMULATED_NETWORK_VERIFICATION: {
    httpStatus: 422,
    source: "core",
    title: "Verification on a simulated chain",
    description: "The pair is simulated in the service's process: no explorer can see its contracts. Verify on a live network.",
  },
  CHAIN_FAULT_NOT_FOUND: {
    httpStatus: 404,
    source: "core",
    title: "No fault with that id on that pair",
    description: "No fault with that id on that chain and network (a restart clears every fault).",
  },
  REQUEST_TIMEOUT: {
    httpStatus: 408,
    source: "http",
    title: "The request was not received in time",
    description: "The headers or the body did not arrive within their timeout; the connection is closed.",
  },
  IDEMPOTENCY_CONFLICT: {
    httpStatus: 409,
    source: "http",
    title: "Idempotency-Key reused with another body",
    description: "An `Idempotency-Key` reused with another body (or query).",
  },
  IDEMPOTENCY_IN_PROGRESS: {
    httpStatus: 409,
    source: "http",
    title: "The first request with that Idempotency-Key is still running",
    description:
      "The first request with that key is still running; `Retry-After` says when to ask again. If its process died, the retry after the claim's lease (or at once after a restart of an embedded store) gets the original outcome.",
  },
  TRANSACTION_NOT_PREPARED: {
    httpStatus: 409,
    source: "core",
    title: "A signed transaction no prepare reserved",
    description:
      "A `signedTransaction` whose nonce no prepare reserved for that sender on that pair (sign the prepared transaction unchanged).",
  },
  NONCE_TAKEN: {
    httpStatus: 409,
    source: "core",
    stored: true,
    title: "The prepared transaction's nonce was taken since: prepare again",
    description:
      "A `signedTransaction` whose reservation expired and whose nonce was taken since (or the chain already used it): prepare again. Stored in an operation's record when another transaction from the same sender (sent with another wallet or tool, or replacing this one) was mined at the record's nonce: the operation's own transaction can never be mined, and it did not happen.",
  },
  PRIVATE_KEYS_DISABLED: {
    httpStatus: 403,
    source: "core",
    title: "This service takes no private key",
    description:
      "`TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false` (the production switch): a request carried `privateKey` (a write, an import), or asked `POST /wallets` for a wallet whose key it would answer (`custody: caller`). Nothing was read of the key, nothing done. Name a held wallet as `sender` without a key, or prepare, sign and submit `signedTransaction`.",
  },
  POLICY_DENIED: {
    httpStatus: 403,
    source: "core",
    title: "The held wallet's policy refuses this write",
    description:
      "A write from a held wallet that its policy (`PUT /wallets/{address}/policy`) does not allow: `field` and `details.rule` name the rule (`networks`, `allowedRecipients`, `allowedContracts`, `maxValuePerTransaction`, `maxValuePerDay`, `maxFeePerGas`), the message says why. Nothing was signed and no nonce was taken. A replacement its `maxFeePerGas` refuses leaves the operation stuck instead.",
  },
  WALLET_ALREADY_HELD: {
    httpStatus: 409,
    source: "core",
    title: "That key is already a held wallet on the pair",
    description:
      "An import of a key whose address is already a held wallet on that chain and network (imported before, by this API key or another). Nothing was written; the key is not echoed.",
  },
  ALREADY_SUBMITTED: {
    httpStatus: 409,
    source: "core",
    title: "That signed transaction was submitted before",
    description:
      "That `signedTransaction` was submitted before; `details.operationId` names its record. A submit whose record ended `failed` before any node held it (refused for storage, or by the node) does not count: the same bytes may be submitted again.",
  },
  ALREADY_DEPLOYED: {
    httpStatus: 409,
    source: "core",
    title: "A contract is already at the launch's CREATE2 address",
    description:
      "A launch with `salt` whose address (it follows from the salt, the token's parameters and its options) already holds a contract: the same launch was made before. `details.contractAddress` names it; nothing was signed. Change the salt to deploy another.",
  },
  OPERATION_FINAL: {
    httpStatus: 409,
    source: "core",
    title: "The operation is final: nothing to speed up or cancel",
    description:
      "A speed-up or cancel of an operation that is already `mined`, `failed`, `dropped` or `cancelled`; `details.status` says which. Nothing was sent.",
  },
  OUTPUT_SPENT: {
    httpStatus: 409,
    source: "core",
    title: "A later transaction spends an output of the Bitcoin send to replace",
    description:
      "A speed-up or cancel of a Bitcoin send whose change (or payment) a later transaction, still unconfirmed, already spends: a replacement would evict that transaction from every mempool. `details.output` names the output (txid:vout). Speed up the later send instead: miners take a child with its parent, so its higher fee pays for both. Nothing was signed.",
  },
  LIVE_NETWORK_FAULTS: {
    httpStatus: 409,
    source: "core",
    title: "Faults on a live network",
    description: "Faults are made only on simulated chains: the pair is served by a live node (`details.endpoint` says which).",
  },
  CHAIN_FAULT_CONFLICT: {
    httpStatus: 409,
    source: "core",
    title: "The fault cannot be made while another one runs",
    description: "The fault cannot be made now: a reorg while a stall or drop holds the chain (clear it first).",
  },
  PAYLOAD_TOO_LARGE: {
    httpStatus: 413,
    source: "http",
    title: "Body over 64 KiB",
    description: "The body is over 64 KiB (or its chunk extensions are too large).",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    httpStatus: 415,
    source: "http",
    title: "Body not sent as application/json",
    description: "The body is not sent as `application/json`, or not in UTF-8.",
  },
  HOST_NOT_ALLOWED: {
    httpStatus: 421,
    source: "http",
    title: "Without API keys (--no-auth): a Host other than a loopback name",
    description:
      "With `--no-auth`, a `Host` other than `localhost`, `127.x` or `[::1]`: a web page reaching the service through a rebound DNS name.",
  },
  KEY_SENDER_MISMATCH: {
    httpStatus: 422,
    source: "core",
    title: "The key does not derive the sender",
    description: "`privateKey` does not derive `sender`, or `signedTransaction` is signed by another key (`details.signer`).",
  },
  TRANSACTION_MISMATCH: {
    httpStatus: 422,
    source: "core",
    title: "The signed transaction is not the prepared one",
    description:
      "`signedTransaction` is not exactly the prepared transaction (or not what the body launches or mints); `details.property` names the field that differs.",
  },
  INSUFFICIENT_FUNDS: {
    httpStatus: 422,
    source: "core",
    title: "The sender cannot pay the fee",
    description:
      "The sender cannot pay the estimated fee (and the amount, for a NATIVE transfer), counting what its sends queued before this one may cost; `details.needed` and `details.available` in smallest units. A NATIVE transfer of more than the balance names the field `amount`.",
  },
  FEE_CAP_EXCEEDED: {
    httpStatus: 422,
    source: "core",
    title: "The fee it needs is over the pair's fee ceiling: nothing was signed",
    description:
      "A send, prepare, speed-up or cancel would need a higher `maxFeePerGas` (or `gasPrice`) than the pair's fee ceiling allows: `TOKEN_SERVICE_FEE_CAP_<CHAIN>_<NETWORK>` or `tokenService.feeCaps` (in gwei), or, for a replacement, the operation's own ceiling (without a configured one, 8 times its first max fee). Refused before anything is signed or sent; `details.ceiling` and `details.needed` in wei, `details.ceilingGwei` as configured.",
  },
  NOT_A_TOKEN_CONTRACT: {
    httpStatus: 422,
    source: "core",
    title: "No ERC20/ERC721/ERC1155 contract at that address",
    description: "No ERC20/ERC721/ERC1155 contract at that address (or not yet mined).",
  },
  NOT_A_MINTER: {
    httpStatus: 422,
    source: "core",
    title: "The sender may not mint on that token",
    description:
      "The sender may not mint on the contract: it lacks the minter role (`MINTER_ROLE`, AccessControl), or the token has one owner (Ownable) and the sender is not it (`details.owner` names the owner), or the token is AccessManaged (access `managed`) and its AccessManager (`details.authority`) does not let the sender call the mint function: `details.error` is then `AccessManagedUnauthorized`, the token's own revert, with `details.args.caller`. Checked before anything is signed.",
  },
  BATCH_MINT_UNSUPPORTED: {
    httpStatus: 422,
    source: "core",
    title: "The token has no batch mint",
    description:
      "A mint with `recipients` on a token whose code has no `airdrop` function (`details.function` names the one needed): the historic contracts (a launch without `token.options`), an ERC20 launched without `mintable`, tokens launched by releases before batch mints, and contracts the service did not launch. Mint one recipient per request there.",
  },
  TOKEN_URI_UNSUPPORTED: {
    httpStatus: 422,
    source: "core",
    title: "The ERC721 has no per-token URI",
    description:
      "An ERC721 mint with a `uri` (or a recipient's) on a token launched without `token.options.uriStorage`: its `tokenURI` is its base URI and the id, and it has no mint that takes a URI (`details.function` names the one needed). Mint without `uri`.",
  },
  CAP_EXCEEDED: {
    httpStatus: 422,
    source: "core",
    title: "An ERC20 mint beyond the cap",
    description: "An ERC20 mint beyond the supply cap; `details.mintable` says how much is left.",
  },
  TOKEN_ID_TAKEN: {
    httpStatus: 422,
    source: "core",
    title: "That ERC721 token id exists",
    description: "An ERC721 `tokenId` that exists.",
  },
  INSUFFICIENT_TOKEN_BALANCE: {
    httpStatus: 422,
    source: "core",
    title: "The sender holds less of the token than it would transfer",
    description:
      "A transfer or burn of more than the sender holds of an ERC20 token (or of one ERC1155 id), refused before signing: the token would revert with `details.reason` (`ERC20InsufficientBalance`, `ERC1155InsufficientBalance`); `details.balance` and `details.needed` in smallest units. A native transfer of more than the balance is `INSUFFICIENT_FUNDS`.",
  },
  NOT_TOKEN_OWNER: {
    httpStatus: 422,
    source: "core",
    title: "The sender (or the named owner) does not hold that token id",
    description:
      "An ERC721 or ERC1155 `tokenId` the sender does not hold (or that does not exist), refused before signing a transfer, approval or burn: `details.reason` names the error the token would revert with (`ERC721IncorrectOwner`, `ERC721NonexistentToken`, `ERC721InvalidApprover`, `ERC721InsufficientApproval`, `ERC1155InsufficientBalance`), `details.owner` the holder where there is one. An allowance read of a token id that does not exist answers it too.",
  },
  NOT_SUPPORTED_BY_TOKEN: {
    httpStatus: 422,
    source: "core",
    title: "The token has no such function: it was launched without that option",
    description:
      "A burn, pause, role grant or revoke, ownership transfer or other token call (a delegation) the token cannot do, refused before signing: its code has no `burn`, no `pause()`/`unpause()` (or no `paused()`), no AccessControl (ERC-165 `0x7965db0b`), no `transferOwnership`, no view of the named role (`PAUSER_ROLE()`), or not the function the write calls (`delegate(address)`). `details.option` names the launch option it lacks (`burnable`, `pausable`, `mintable`, `votes`, `access`; for `access`, `details.needed` is `roles` or `ownable` and `details.found` what the token has: `managed` for an AccessManaged token, whose roles and admins are its AccessManager's, named in `details.authority`), `details.function` the function looked for. Read from the code's function dispatcher (docs/decisions/0036-token-admin-writes.md); a proxy of another kind than EIP-1967 or EIP-1167 is not judged here: its node's estimate is.",
  },
  NOT_UPGRADER: {
    httpStatus: 422,
    source: "core",
    title: "The sender may not upgrade that token",
    description:
      "An upgrade (`POST /api/v1/tokens/upgrade`, `token:upgrade`) from a sender the proxy would refuse, checked before anything is signed or sent by simulating the upgrade call: a UUPS token's `_authorizeUpgrade` (its owner with access `ownable`, a holder of `UPGRADER_ROLE` with `roles`, a caller its AccessManager allows with `managed`), a transparent proxy's ProxyAdmin (its owner only; with `managed` that owner is the AccessManager, called through its `execute`). `details.error` and `details.args` are the revert decoded (`OwnableUnauthorizedAccount`, `AccessControlUnauthorizedAccount`, `AccessManagedUnauthorized`), `details.owner` a ProxyAdmin's owner.",
  },
  UPGRADE_UNSAFE: {
    httpStatus: 422,
    source: "core",
    title: "OpenZeppelin's upgrade checks refuse the new implementation",
    description:
      "The new implementation an upgrade names (its `options`) failed `@openzeppelin/upgrades-core`'s validation before anything was signed: its own code is not upgrade-safe (a constructor setting state, `selfdestruct`, `delegatecall`, no `upgradeToAndCall` behind a UUPS proxy…), or its storage layout is not compatible with the current implementation's (a variable removed, moved, retyped; ERC-7201 namespaces included). `details.reasons` holds upgrades-core's own explanations, one per problem.",
  },
  UPGRADE_INCOMPATIBLE: {
    httpStatus: 422,
    source: "core",
    title: "The new options cannot replace the token's implementation",
    description:
      "An upgrade whose `options` change what the proxy and its state are bound to, refused before anything is signed (`field` names the option): the token is not upgradeable (`contractAddress`), `options.upgradeable` is not the token's (a UUPS proxy stays UUPS, a transparent one transparent), `options.access` is not the token's (the new access would never be initialized), an option whose base keeps state set by the initializer is added (`capped`, `royalty`, `permit`, `votes`: an upgrade runs no initializer, so the cap, royalty or EIP-712 name would be empty), the votes' clock changes, or the proxy's current implementation is not one this service deployed for it (`details.implementation`: upgraded by other tools, its layout unknown).",
  },
  NOTHING_TO_UPGRADE: {
    httpStatus: 409,
    source: "core",
    title: "The token already runs that implementation",
    description:
      "An upgrade whose `options` name the implementation the proxy already points to (`details.implementation`): nothing was signed or sent. A retry of an upgrade that was mined answers this too; read the token (`GET /api/v1/tokens/{address}`, `upgradeable.implementation`).",
  },
  TOO_MANY_TOKEN_IDS: {
    httpStatus: 422,
    source: "core",
    title: "The holder has more token ids than one listing reads",
    description:
      "Listing an owner's ERC721 token ids reads every id it holds (or every id a Transfer log shows it received) to page them in order; past `details.limit` (10 000) the listing is refused rather than read in part.",
  },
  CREATE2_FACTORY_MISSING: {
    httpStatus: 422,
    source: "core",
    title: "A launch with salt on a live chain without the CREATE2 factory",
    description:
      "A launch with `salt` on a live chain where the deterministic deployment proxy (0x4e59b44847b379578588920cA78FbF26c0B4956C) is not deployed. `details` names its deployer, the funding it needs and its pre-signed `deploymentTransaction`: fund the deployer, broadcast it, and launch again (simulated chains deploy it themselves).",
  },
  TRANSACTION_REJECTED: {
    httpStatus: 422,
    source: "core",
    stored: true,
    title: "The node refused it",
    description:
      "The node refused the transaction (nonce) or could not estimate its gas though it would not revert, or it was not sent because the same sender's transaction before it was refused (send it again). Stored in an operation's record when the node refused the broadcast.",
  },
  WOULD_REVERT: {
    httpStatus: 422,
    source: "core",
    title: "The chain would revert it: nothing was signed",
    description:
      "The node's dry run of the transaction (`eth_estimateGas`, then `eth_call` with the same sender, target and data) reverts, so nothing was signed or sent and no record was written. `details.error` names the revert, decoded with the shipped contracts' ABIs and OpenZeppelin's standard errors (`ERC721InvalidReceiver`, `AccessControlUnauthorizedAccount`, `ERC20ExceededCap`, …; `Error` for a require message, in `args.reason`; `Panic` with `args.code`), `details.args` its arguments as strings by name; `error` is null for a revert without data or with an error the service does not know (`details.data` then holds the raw revert data). `details.outOfGas` is true when the node found the transaction needs more gas than one may use (16,777,216 under EIP-7825): a batch mint with long URIs, say; split it. Where the mint's own checks find the cause first, the more specific `NOT_A_MINTER`, `CAP_EXCEEDED` or `TOKEN_ID_TAKEN` is answered instead; so are a transfer's, approval's or burn's `INSUFFICIENT_TOKEN_BALANCE` and `NOT_TOKEN_OWNER`, and `NOT_SUPPORTED_BY_TOKEN`. A pause of a paused token (or an unpause of one that is not paused) is answered `WOULD_REVERT` by a read of `paused()`, naming `EnforcedPause` (or `ExpectedPause`) with `field` `paused`.",
  },
  LIVE_NETWORK_FAUCET: {
    httpStatus: 422,
    source: "core",
    title: "The faucet on a live network",
    description: "The faucet only funds simulated chains (and bitcoin regtest), not a live network.",
  },
  RATE_LIMITED: {
    httpStatus: 429,
    source: "http",
    title: "Per-key rate limit reached (see Retry-After)",
    description: "The API key's request limit for the window is reached; `Retry-After` says when to try again.",
  },
  TOO_MANY_CONNECTIONS: {
    httpStatus: 429,
    source: "http",
    title: "Too many open connections from this address (see Retry-After)",
    description:
      "This client address already holds `TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT` open connections: the new one is answered this as it opens and closed, and no request sent on it is acted on. Reuse connections (keep-alive), or open fewer at once.",
  },
  TOO_MANY_AUTH_FAILURES: {
    httpStatus: 429,
    source: "http",
    title: "Too many wrong API keys from this address (see Retry-After)",
    description: "Too many wrong API keys from one client address; every key from it is refused until `Retry-After`.",
  },
  HEADERS_TOO_LARGE: {
    httpStatus: 431,
    source: "http",
    title: "Request headers over 16 KiB",
    description: "The request headers are over 16 KiB.",
  },
  INTERNAL: {
    httpStatus: 500,
    source: "http",
    stored: true,
    title: "A bug of the service; it has been logged",
    description:
      "An unexpected failure: a bug of the service, logged with its stack (never sent to the client). Stored in an operation's record when a grant or broadcast failed that way.",
  },
  UPSTREAM_UNAVAILABLE: {
    httpStatus: 502,
    source: "core",
    title: "The node or Esplora failed to answer",
    description: "The node, bitcoind, Esplora or AWS KMS (a held wallet's signer) failed to answer.",
  },
  CHAIN_ID_MISMATCH: {
    httpStatus: 502,
    source: "core",
    title: "The configured endpoint serves another chain",
    description: "The configured endpoint serves another chain than the pair it is configured for.",
  },
  BACKEND_NOT_CONFIGURED: {
    httpStatus: 503,
    source: "core",
    title: "No backend for that network",
    description:
      "No backend for that network (or simulated chains are off), or its configuration variable has no value or a bad one; the message names the variable to set.",
  },
  CONTRACT_COMPILER_UNAVAILABLE: {
    httpStatus: 503,
    source: "core",
    title: "The token's contract cannot be compiled here",
    description:
      "A launch whose options are compiled on first use (docs/tokens.md) found no compiler to do it: the installed `solc` package is another version than the one the service's contracts are built with (the message names both), or its compile thread failed before answering (out of memory). Nothing was compiled, signed or recorded, so retrying is safe; an operator reinstalls the package's dependencies (`solc` is pinned) or gives the process more memory. Launches of the precompiled options go on meanwhile.",
  },
  SERVICE_UNAVAILABLE: {
    httpStatus: 503,
    source: "http",
    title: "The database cannot be reached (see Retry-After)",
    description: "The database cannot be reached; `Retry-After` says when to retry.",
  },
  KEYSTORE_LOCKED: {
    httpStatus: 503,
    source: "core",
    title: "The keystore cannot sign: its passphrase is not set, or wrong",
    description:
      "A write from a held wallet (or an import) while the service's keystore is locked: `TOKEN_SERVICE_KEYSTORE_PASSPHRASE` is not set, does not open the keystore, or (for an import) there is no keystore yet and no passphrase to make one. Nothing was signed and no nonce was taken; the message says which. Everything else works meanwhile, creating held wallets included (their addresses need no passphrase). An operator sets the right passphrase and restarts `serve`.",
  },
  SIGNING_KEY_UNAVAILABLE: {
    httpStatus: 503,
    source: "core",
    title: "The held wallet's KMS key cannot sign",
    description:
      "A write from a held wallet whose key is in AWS KMS (`TOKEN_SERVICE_SIGNER=aws-kms`), or a new held wallet there, that KMS refused for the key's sake: `details.problem` says why (`not-found`, `access-denied`, `credentials`, `unusable-state`, `wrong-key-spec`, `wrong-address`, `refused`), the message names the key (never key material). Nothing was signed; an operator fixes the key, its policy or the service's credentials. KMS not answering is `UPSTREAM_UNAVAILABLE` or `UPSTREAM_TIMEOUT`.",
  },
  STORAGE_UNAVAILABLE: {
    httpStatus: 503,
    source: "core",
    stored: true,
    title: "The service's own storage is exhausted (see Retry-After)",
    description:
      "The data directory (a simulated chain's journal, or the embedded database) is full, read-only or out of file descriptors, or the PostgreSQL server's own disk is full or failing (SQLSTATE 53100, 58030): nothing was done (a launch's record, where one was written, ends `failed` with this code and is never sent, its nonce free again); `Retry-After` says when to retry, and the service recovers by itself when room comes back. `/health` shows `storage` not ready meanwhile.",
  },
  DATA_DIR_IN_USE: {
    httpStatus: 503,
    source: "core",
    title: "Another process holds the data directory",
    description:
      "Another process holds the data directory; the message names it (`hardhat serve (pid 4242, http://127.0.0.1:8080)`). Tasks and the programmatic API raise it; the HTTP service refuses to start with it.",
  },
  UPSTREAM_TIMEOUT: {
    httpStatus: 504,
    source: "core",
    title: "The node or Esplora timed out",
    description: "The node, bitcoind, Esplora or AWS KMS (a held wallet's signer) did not answer in time.",
  },
  TRANSACTION_REVERTED: {
    httpStatus: null,
    source: "record",
    stored: true,
    title: "Mined, but reverted",
    description: "The operation's transaction was mined but reverted (stored in the operation's record; never an HTTP answer).",
  },
  TRANSACTION_DROPPED: {
    httpStatus: null,
    source: "record",
    stored: true,
    title: "Lost, and not accepted again within the drop window",
    description:
      "The node dropped the operation's transaction and it was not accepted again within the drop window, or it could not be broadcast in that window (stored in the operation's record; never an HTTP answer).",
  },
} as const satisfies Record<string, ErrorDescriptor>;
