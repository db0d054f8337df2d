import { randomInt } from "node:crypto";

import type { Psbt } from "bitcoinjs-lib";

import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { secp256k1 } from "../crypto/secp256k1.js";
import { parseBitcoinAddress } from "./addresses.js";
import { MAX_MONEY_SATOSHIS } from "./amounts.js";
import { type BitcoinSigner, psbtSigner, senderOutput, taprootKeyPathSigner, xOnly } from "./bitcoin-signer.js";
import { type SpendableOutput, selectCoins } from "./coin-selection.js";
import { bitcoinLibraries } from "./libraries.js";
import { bitcoinjsNetwork } from "./networks.js";
import { MAX_FEE_RATE, dustThreshold, estimateVirtualSize, feeFor, feeRateOf, milliSatoshisPerVbyte } from "./tx-size.js";
import type { BitcoinAddressType } from "./wallet-keys.js";

// Builds, signs and serialises the sends of a held wallet: a payment, its fee bump (BIP 125 replacement) and its
// cancellation. No I/O but the signer and, for a p2pkh sender, the previous transactions it is handed: the caller
// reads the coins from a backend and broadcasts the result.

/** BIP 125: an input's nSequence below 0xfffffffe signals that the transaction may be replaced. */
export const RBF_SEQUENCE = 0xfffffffd;

/** Bitcoin Core's default `-incrementalrelayfee`, sat/vB: what a replacement must pay on top of the original's fee, per vB of its own. */
export const DEFAULT_INCREMENTAL_RELAY_FEE_RATE = 1;

/** An output a transaction spends. */
export interface SpentOutput {
  txid: string;
  vout: number;
  value: bigint;
}

/** A coin of the sender as a backend lists it. */
export interface SenderCoin extends SpendableOutput {
  /** Hex; when given it must be the sender's own script, else the coin is not the sender's and is left alone. */
  scriptPubKey?: string;
}

export interface BitcoinSender {
  network: string;
  signer: BitcoinSigner;
  addressType: BitcoinAddressType;
  /** The sender's address, when known: refused if the signer's key does not derive it. */
  address?: string;
  /** p2pkh only: the previous transaction (hex) of a coin; a legacy signature commits to no amount, so the input must carry it. */
  previousTransaction?: (txid: string) => Promise<string>;
}

export interface SendRequest {
  sender: BitcoinSender;
  /** The sender's spendable coins (backend.listUnspent). */
  coins: readonly SenderCoin[];
  to: string;
  /** Satoshis. */
  amount: bigint;
  /** sat/vB. */
  feeRate: number;
}

export interface SignedBitcoinSend {
  /** The signed transaction, hex, ready for backend.broadcast. */
  hex: string;
  txid: string;
  /** Virtual size of the signed transaction, vB. */
  vsize: number;
  /** Satoshis: inputs minus outputs. */
  fee: bigint;
  /** The fee rate actually paid, sat/vB (three decimals, rounded down). */
  feeRate: number;
  inputs: SpentOutput[];
  /** The recipient's output; absent from a cancellation. */
  payment?: { address: string; value: bigint; vout: number };
  /** The sender's own output: change, or everything a cancellation returns. */
  change?: { address: string; value: bigint; vout: number };
}

/** What a replacement needs of the send it replaces (as recorded when it was built). */
export type PreviousBitcoinSend = Pick<SignedBitcoinSend, "txid" | "fee" | "vsize" | "inputs" | "payment">;

export interface ReplacementRequest {
  sender: BitcoinSender;
  previous: PreviousBitcoinSend;
  /** sat/vB; must be above the previous send's effective rate. */
  feeRate: number;
  /** The sender's coins, in case the previous inputs cannot pay the higher fee; only confirmed ones are added (BIP 125 rule 2). */
  coins?: readonly SenderCoin[];
  /** sat/vB; the node's `incrementalrelayfee` (getmempoolinfo), 1 by default. */
  incrementalRelayFeeRate?: number;
  /** Fees of the previous send's mempool descendants, which the replacement evicts and must also outbid (rule 3). */
  descendantFees?: bigint;
}

/** A payment from the sender's coins to `to`, change back to the sender's address, every input signalling RBF. */
export async function buildSend(request: SendRequest): Promise<SignedBitcoinSend> {
  const { sender } = request;
  const own = resolveSender(sender);
  const feeRate = checkFeeRate(request.feeRate);
  const to = parseBitcoinAddress(request.to, sender.network, "to");
  const toScript = outputScript(to, sender.network);
  checkAmount(request.amount, toScript);
  const selection = selectCoins({
    candidates: ownCoins(request.coins, own.script),
    inputType: sender.addressType,
    payments: [{ script: toScript, value: request.amount }],
    changeScript: own.script,
    feeRate,
  });
  return sign(sender, own, selection.inputs, { address: to, script: toScript, value: request.amount }, selection.change, (vsize) =>
    feeFor(vsize, feeRate),
  );
}

/**
 * A fee bump of a send still in the mempool: the same inputs, the same payment, a higher fee taken from the change, so
 * that nodes replace the original (BIP 125 as Bitcoin Core applies it: a higher absolute fee, at least the original's
 * fee plus the incremental relay fee for the replacement's own size, and a higher fee rate). When the change cannot
 * give enough it is dropped (a remainder below dust goes to the fee) or, if that is still short, confirmed coins are
 * added; otherwise INSUFFICIENT_FUNDS says how much is missing.
 */
export async function buildReplacement(request: ReplacementRequest): Promise<SignedBitcoinSend> {
  const { sender, previous } = request;
  if (previous.payment === undefined)
    throw invalidArgument("previous", "the send to replace has no payment: replace a cancellation with buildCancel");
  const own = resolveSender(sender);
  const feeRate = checkReplacementRate(request.feeRate, previous);
  const payment = previous.payment;
  const paymentScript = outputScript(payment.address, sender.network);
  const minimumFee = replacementFloor(request);
  const selection = selectCoins({
    required: previous.inputs.map((input) => ({ ...input, confirmations: 0 })),
    candidates: ownCoins(request.coins ?? [], own.script).filter((coin) => coin.txid !== previous.txid),
    minConfirmations: 1,
    inputType: sender.addressType,
    payments: [{ script: paymentScript, value: payment.value }],
    changeScript: own.script,
    feeRate,
    minimumFee,
    shortfallField: "feeRate",
  });
  return sign(
    sender,
    own,
    selection.inputs,
    { address: payment.address, script: paymentScript, value: payment.value },
    selection.change,
    (vsize) => max(feeFor(vsize, feeRate), minimumFee(vsize)),
  );
}

/**
 * A cancellation of a send still in the mempool: a replacement spending the same inputs back to the sender's own
 * address, paying what BIP 125 asks of a replacement. Once mined, the original can never be.
 */
export async function buildCancel(request: Omit<ReplacementRequest, "coins">): Promise<SignedBitcoinSend> {
  const { sender, previous } = request;
  const own = resolveSender(sender);
  const feeRate = checkReplacementRate(request.feeRate, previous);
  const minimumFee = replacementFloor(request);
  const selection = selectCoins({
    required: previous.inputs.map((input) => ({ ...input, confirmations: 0 })),
    candidates: [],
    inputType: sender.addressType,
    payments: [],
    changeScript: own.script,
    feeRate,
    minimumFee,
    shortfallField: "feeRate",
  });
  if (selection.change === 0n) {
    // Everything would go to the fee: a transaction with no output is invalid, and one paying dust is not relayed.
    const total = previous.inputs.reduce((sum, input) => sum + input.value, 0n);
    const dust = dustThreshold(own.script);
    const vsize = estimateVirtualSize(sender.addressType, previous.inputs.length, [own.script]);
    const fee = max(feeFor(vsize, feeRate), minimumFee(vsize));
    throw new TokenServiceError(
      ErrorCode.INSUFFICIENT_FUNDS,
      `cancelling at ${feeRate} sat/vB would leave less than the dust threshold of ${dust} sat of the ${total} sat the send spends: let it confirm, or cancel at a lower fee rate`,
      { field: "feeRate", details: { needed: (fee + dust).toString(), available: total.toString(), symbol: "BTC" } },
    );
  }
  return sign(sender, own, selection.inputs, undefined, selection.change, (vsize) => max(feeFor(vsize, feeRate), minimumFee(vsize)));
}

interface OwnOutput {
  address: string;
  script: Uint8Array;
  /** The key that signs the inputs: the sender's, or its Taproot tweak. */
  signer: BitcoinSigner;
}

function resolveSender(sender: BitcoinSender): OwnOutput {
  const { address, script } = senderOutput(sender.signer.publicKey, sender.addressType, sender.network);
  if (sender.address !== undefined && sender.address !== address) {
    throw new TokenServiceError(
      ErrorCode.KEY_SENDER_MISMATCH,
      `the signer's key does not derive the ${sender.addressType} address ${sender.address}`,
      {
        field: "sender",
      },
    );
  }
  if (sender.addressType === "p2pkh" && sender.previousTransaction === undefined) {
    throw new TypeError("a p2pkh sender needs previousTransaction: a legacy input carries the transaction it spends");
  }
  const signer = sender.addressType === "p2tr" ? taprootKeyPathSigner(sender.signer) : sender.signer;
  return { address, script, signer };
}

function outputScript(address: string, network: string): Uint8Array {
  return bitcoinLibraries().lib.address.toOutputScript(address, bitcoinjsNetwork(network));
}

/** Coins whose script, when the backend tells it, is the sender's: another script is not this key's to spend. */
function ownCoins(coins: readonly SenderCoin[], script: Uint8Array): SenderCoin[] {
  const hex = Buffer.from(script).toString("hex");
  return coins.filter((coin) => coin.scriptPubKey === undefined || coin.scriptPubKey.toLowerCase() === hex);
}

function checkFeeRate(feeRate: number): number {
  if (typeof feeRate !== "number" || !Number.isFinite(feeRate) || feeRate <= 0) {
    throw invalidArgument("feeRate", "feeRate must be a positive number of sat/vB");
  }
  if (feeRate > MAX_FEE_RATE) throw invalidArgument("feeRate", `feeRate is above ${MAX_FEE_RATE} sat/vB, which nodes refuse as absurd`);
  return feeRate;
}

function checkAmount(amount: bigint, script: Uint8Array): void {
  if (typeof amount !== "bigint" || amount <= 0n) throw invalidArgument("amount", "amount must be a positive number of satoshis");
  if (amount > MAX_MONEY_SATOSHIS) throw invalidArgument("amount", "amount exceeds the 21 million BTC supply");
  const dust = dustThreshold(script);
  if (amount < dust) {
    throw invalidArgument("amount", `amount is below the dust limit of ${dust} sat for that address type: nodes would not relay it`, {
      dustLimit: dust.toString(),
    });
  }
}

/** The rate of a replacement must be above the original's (else nodes refuse it: BIP 125 rules 3, 4 and Core's rule 6). */
function checkReplacementRate(feeRate: number, previous: PreviousBitcoinSend): number {
  checkFeeRate(feeRate);
  if (milliSatoshisPerVbyte(feeRate) * BigInt(previous.vsize) <= previous.fee * 1000n) {
    throw invalidArgument("feeRate", `feeRate must be above the replaced send's ${feeRateOf(previous.fee, previous.vsize)} sat/vB`, {
      previousFeeRate: feeRateOf(previous.fee, previous.vsize),
    });
  }
  return feeRate;
}

/** BIP 125 rules 3 and 4: at least the fees it evicts plus the incremental relay fee for its own size. */
function replacementFloor(request: Omit<ReplacementRequest, "coins">): (vsize: number) => bigint {
  const evicted = request.previous.fee + (request.descendantFees ?? 0n);
  const incremental = request.incrementalRelayFeeRate ?? DEFAULT_INCREMENTAL_RELAY_FEE_RATE;
  return (vsize) => evicted + feeFor(vsize, incremental);
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Assembles the PSBT (inputs signalling RBF, the payment, the change at a random position so that it does not give
 * itself away), signs every input through the signer, checks each signature, finalises and extracts; then checks
 * that the signed transaction pays at least `feeFloor` of its real size.
 */
async function sign(
  sender: BitcoinSender,
  own: OwnOutput,
  inputs: readonly SpentOutput[],
  payment: { address: string; script: Uint8Array; value: bigint } | undefined,
  change: bigint,
  feeFloor: (vsize: number) => bigint,
): Promise<SignedBitcoinSend> {
  const { lib } = bitcoinLibraries();
  const psbt = new lib.Psbt({ network: bitcoinjsNetwork(sender.network), maximumFeeRate: MAX_FEE_RATE });
  for (const input of inputs) await addInput(psbt, sender, own, input);

  const outputs: Array<{ role: "payment" | "change"; address: string; script: Uint8Array; value: bigint }> = [];
  if (payment !== undefined) outputs.push({ role: "payment", ...payment });
  if (change > 0n)
    outputs.splice(randomInt(outputs.length + 1), 0, { role: "change", address: own.address, script: own.script, value: change });
  for (const output of outputs) psbt.addOutput({ script: output.script, value: output.value });

  const signer = psbtSigner(own.signer);
  for (let index = 0; index < inputs.length; index++) await psbt.signInputAsync(index, signer);
  if (!psbt.validateSignaturesOfAllInputs(verifySignature)) {
    throw new Error("the signer returned a signature that does not verify against its public key");
  }
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction(true);

  const vsize = tx.virtualSize();
  const fee = inputs.reduce((sum, input) => sum + input.value, 0n) - outputs.reduce((sum, output) => sum + output.value, 0n);
  // The estimate counts every signature at its largest, so the real size is never above it: a breach is a bug.
  if (fee < feeFloor(vsize))
    throw new Error(`the signed transaction pays ${fee} sat for ${vsize} vB, below its floor of ${feeFloor(vsize)} sat`);

  const located = (role: "payment" | "change") => {
    const vout = outputs.findIndex((output) => output.role === role);
    return vout < 0 ? undefined : { address: outputs[vout]!.address, value: outputs[vout]!.value, vout };
  };
  const paid = located("payment");
  const changed = located("change");
  return {
    hex: tx.toHex(),
    txid: tx.getId(),
    vsize,
    fee,
    feeRate: feeRateOf(fee, vsize),
    inputs: inputs.map(({ txid, vout, value }) => ({ txid, vout, value })),
    ...(paid ? { payment: paid } : {}),
    ...(changed ? { change: changed } : {}),
  };
}

async function addInput(psbt: Psbt, sender: BitcoinSender, own: OwnOutput, input: SpentOutput): Promise<void> {
  const base = { hash: input.txid, index: input.vout, sequence: RBF_SEQUENCE };
  switch (sender.addressType) {
    case "p2wpkh":
      psbt.addInput({ ...base, witnessUtxo: { script: own.script, value: input.value } });
      return;
    case "p2tr":
      psbt.addInput({ ...base, witnessUtxo: { script: own.script, value: input.value }, tapInternalKey: xOnly(sender.signer.publicKey) });
      return;
    case "p2pkh": {
      const hex = await sender.previousTransaction!(input.txid);
      const previous = bitcoinLibraries().lib.Transaction.fromHex(hex);
      const spent = previous.outs[input.vout];
      if (
        previous.getId() !== input.txid ||
        spent === undefined ||
        spent.value !== input.value ||
        !Buffer.from(spent.script).equals(own.script)
      ) {
        throw new Error(`the previous transaction handed for ${input.txid}:${input.vout} does not hold that coin of the sender`);
      }
      psbt.addInput({ ...base, nonWitnessUtxo: Buffer.from(hex, "hex") });
      return;
    }
  }
}

/** ECDSA (strict: low s, as nodes require) for a 33-byte key, BIP 340 Schnorr for an x-only one. */
function verifySignature(publicKey: Uint8Array, digest: Uint8Array, signature: Uint8Array): boolean {
  const curve = secp256k1();
  return publicKey.length === 32 ? curve.verifySchnorr(digest, publicKey, signature) : curve.verify(digest, publicKey, signature, true);
}
