import type { Generated } from "kysely";

/** Milliseconds since the epoch; pg returns bigint columns as strings. */
type Millis = number | string;
/** JSON: parsed by pg, text in SQLite. */
type Json = unknown;

export interface Database {
  api_keys: {
    id: string;
    label: string | null;
    key_hash: string;
    created_at: Generated<Millis>;
  };
  operations: {
    id: string;
    api_key_id: string | null;
    kind: string;
    chain: string;
    network: string;
    token_type: string | null;
    params: Json;
    sender: string | null;
    transaction_hash: string | null;
    contract_address: string | null;
    nonce: number | string | null;
    raw_transaction: string | null;
    status: string;
    error: Json | null;
    block_number: number | string | null;
    block_hash: string | null;
    result: Json | null;
    transitions: Json;
    created_at: Millis;
    updated_at: Millis;
    next_check_at: Millis | null;
    lease_owner: string | null;
    lease_until: Millis | null;
    missing_since: Millis | null;
    mined_at: Millis | null;
    stuck: Json | null;
    broadcast_block: number | string | null;
  };
  operation_transactions: {
    operation_id: string;
    transaction_hash: string;
    role: "original" | "replacement" | "cancel";
    rung: number;
    nonce: number | string;
    raw_transaction: string | null;
    signature: string | null;
    max_fee_per_gas: string | null;
    max_priority_fee_per_gas: string | null;
    gas_price: string | null;
    created_at: Millis;
    broadcast_at: Millis | null;
    /** A Bitcoin transaction's coins and fee (BitcoinSpend, JSON); null on EVM chains. */
    bitcoin_spend: Json;
  };
  idempotency: {
    api_key_id: string | null;
    route: string;
    key: string;
    request_hash: string;
    status: "in_progress" | "done";
    status_code: number | null;
    body: Json | null;
    operation_id: string | null;
    created_at: Millis;
    completed_at: Millis | null;
    lease_until: Millis;
    expires_at: Millis;
  };
  keystore: {
    id: string;
    /** Web3 Secret Storage v3 JSON of the seed's first EVM account, its mnemonic inside (ethers' x-ethers). */
    seed: string;
    /** The extended public key of the seed's EVM account (m/44'/60'/0'): addresses without the passphrase. */
    evm_account_key: string;
    next_index: number | string;
    created_at: Millis;
    updated_at: Millis;
  };
  held_wallets: {
    chain: string;
    network: string;
    /** Lowercase. */
    address: string;
    api_key_id: string | null;
    source: "derived" | "imported" | "kms";
    derivation_index: number | string | null;
    encrypted_key: string | null;
    kms_key_id: string | null;
    created_at: Millis;
  };
  wallet_policies: {
    /** Lowercase. */
    address: string;
    api_key_id: string | null;
    policy: Json;
    updated_at: Millis;
  };
  wallet_spending: {
    operation_id: string;
    chain: string;
    network: string;
    address: string;
    /** YYYY-MM-DD, UTC. */
    day: string;
    value: string;
    created_at: Millis;
  };
  nonce_reservations: {
    chain: string;
    network: string;
    sender: string;
    nonce: number | string;
    prepared_transaction: Json;
    created_at: Millis;
    expires_at: Millis;
    /** A zero-value transfer to the sender at this nonce, signed ahead by a send above it (0008). */
    filler_transaction: string | null;
  };
  rate_limits: {
    bucket: string;
    window_start: Millis;
    count: number;
  };
  webhooks: {
    id: string;
    api_key_id: string | null;
    url: string;
    events: Json;
    secret: string;
    created_at: Generated<Millis>;
  };
  webhook_deliveries: {
    id: string;
    webhook_id: string;
    event_type: string;
    operation_id: string;
    payload: Json;
    status: "pending" | "delivered" | "failed";
    attempts: Generated<number>;
    next_attempt_at: Millis | null;
    lease_owner: string | null;
    lease_until: Millis | null;
    last_error: string | null;
    last_response_status: number | null;
    created_at: Millis;
    delivered_at: Millis | null;
  };
  subscriptions: {
    id: string;
    api_key_id: string | null;
    chain: string;
    network: string;
    /** SubscriptionTarget. */
    target: Json;
    confirmations: number;
    from_block: number | string | null;
    start_block: number | string;
    backfill_next: number | string | null;
    created_at: Millis;
  };
  chain_scans: {
    chain: string;
    network: string;
    next_block: number | string | null;
    lease_owner: string | null;
    lease_until: Millis | null;
    feed_seq: Generated<number | string>;
    updated_at: Millis;
  };
  scanned_blocks: {
    chain: string;
    network: string;
    number: number | string;
    hash: string;
  };
  chain_events: {
    id: string;
    subscription_id: string;
    chain: string;
    network: string;
    block_number: number | string;
    block_hash: string;
    position: number;
    due_at: number | string;
    type: "chain.activity" | "chain.event";
    /** The ChainEvent as found. */
    payload: Json;
    status: "held" | "delivered" | "removed";
    confirmations: number | null;
    revision: Generated<number>;
    created_at: Millis;
  };
  chain_event_feed: {
    id: string;
    subscription_id: string;
    event_id: string;
    type: string;
    seq: number | string;
    /** The event as delivered (with its confirmations then). */
    payload: Json;
    created_at: Millis;
  };
  verifications: {
    id: string;
    api_key_id: string | null;
    explorer: "etherscan" | "blockscout" | "sourcify";
    chain: string;
    network: string;
    address: string;
    operation_id: string;
    status: "pending" | "verified" | "failed";
    explorer_reference: string | null;
    explorer_message: string | null;
    url: string | null;
    next_check_at: Millis | null;
    lease_owner: string | null;
    lease_until: Millis | null;
    created_at: Millis;
    updated_at: Millis;
  };
}
