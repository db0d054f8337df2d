import { inspect } from "node:util";

import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { expect } from "chai";

import { type BitcoinSigner, localBitcoinSigner, senderOutput } from "../../src/chains/bitcoin/bitcoin-signer.js";
import { bitcoinLibraries } from "../../src/chains/bitcoin/libraries.js";
import { bitcoinjsNetwork } from "../../src/chains/bitcoin/networks.js";
import {
  type BitcoinSender,
  type SenderCoin,
  type SignedBitcoinSend,
  RBF_SEQUENCE,
  buildCancel,
  buildReplacement,
  buildSend,
} from "../../src/chains/bitcoin/psbt-send.js";
import { estimateVirtualSize, feeFor } from "../../src/chains/bitcoin/tx-size.js";
import { createBitcoinKeyPair, type BitcoinAddressType } from "../../src/chains/bitcoin/wallet-keys.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { expectNoSecret, expectServiceError } from "../helpers/errors.js";

const { lib } = bitcoinLibraries();
const REGTEST = bitcoinjsNetwork("regtest");
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const RECIPIENT = createBitcoinKeyPair("regtest").address;
const RECIPIENT_SCRIPT = lib.address.toOutputScript(RECIPIENT, REGTEST);

/** A sender with a fresh key, and coins of its own (made-up outpoints: nothing here reaches a chain). */
function sender(addressType: BitcoinAddressType = "p2wpkh", signer?: BitcoinSigner) {
  const keyPair = createBitcoinKeyPair("regtest", addressType);
  const own = localBitcoinSigner(keyPair.privateKey, "regtest");
  const { script } = senderOutput(own.publicKey, addressType, "regtest");
  const previous = new Map<string, string>();
  /** p2pkh inputs carry their previous transaction: each coin gets a real one paying the sender. */
  const coinOf = (value: bigint, confirmations = 1): SenderCoin => {
    const tx = new lib.Transaction();
    tx.addInput(Buffer.alloc(32, previous.size + 1), 0);
    tx.addOutput(script, value);
    previous.set(tx.getId(), tx.toHex());
    return { txid: tx.getId(), vout: 0, value, confirmations, scriptPubKey: Buffer.from(script).toString("hex") };
  };
  const description: BitcoinSender = {
    network: "regtest",
    signer: signer ?? own,
    addressType,
    address: keyPair.address,
    ...(addressType === "p2pkh" ? { previousTransaction: async (txid: string) => previous.get(txid)! } : {}),
  };
  return { sender: description, address: keyPair.address, privateKey: keyPair.privateKey, script, coinOf, signer: own };
}

function decode(send: SignedBitcoinSend) {
  return lib.Transaction.fromHex(send.hex);
}

/** The fee the transaction pays by its own bytes: what its inputs held minus what its outputs pay. */
function feePaid(send: SignedBitcoinSend): bigint {
  const tx = decode(send);
  return send.inputs.reduce((sum, input) => sum + input.value, 0n) - tx.outs.reduce((sum, output) => sum + output.value, 0n);
}

describe("bitcoin sends as PSBTs: build, sign, bump", function () {
  for (const addressType of ["p2wpkh", "p2tr", "p2pkh"] as const) {
    it(`${addressType}: signs every input, signals RBF, pays at least the asked rate of its real size, within the estimate`, async function () {
      const { sender: from, coinOf, script } = sender(addressType);
      const coins = [coinOf(40_000n), coinOf(70_000n), coinOf(25_000n)];
      for (const feeRate of [1, 3.7, 25]) {
        const send = await buildSend({ sender: from, coins, to: RECIPIENT, amount: 100_000n, feeRate });
        const tx = decode(send);
        expect(tx.getId()).to.equal(send.txid);
        expect(tx.virtualSize()).to.equal(send.vsize);
        expect(tx.ins.map((input) => input.sequence)).to.deep.equal(send.inputs.map(() => RBF_SEQUENCE));
        expect(send.inputs.map((input) => input.value)).to.deep.equal([70_000n, 40_000n]);
        expect(feePaid(send)).to.equal(send.fee);
        expect(send.fee >= feeFor(send.vsize, feeRate)).to.equal(true);
        expect(send.feeRate).to.be.at.least(feeRate);
        expect(send.vsize).to.be.at.most(estimateVirtualSize(addressType, 2, [RECIPIENT_SCRIPT, script]));
        expect(tx.outs[send.payment!.vout]!.value).to.equal(100_000n);
        expect(lib.address.fromOutputScript(tx.outs[send.payment!.vout]!.script, REGTEST)).to.equal(RECIPIENT);
        expect(Buffer.from(tx.outs[send.change!.vout]!.script).equals(Buffer.from(script))).to.equal(true);
        expect(tx.outs[send.change!.vout]!.value).to.equal(send.change!.value);
      }
    });
  }

  it("puts the change at either position, and reports where", async function () {
    const { sender: from, coinOf } = sender();
    const coins = [coinOf(1_000_000n)];
    const positions = new Set<number>();
    for (let round = 0; round < 40 && positions.size < 2; round++) {
      const send = await buildSend({ sender: from, coins, to: RECIPIENT, amount: 100_000n, feeRate: 2 });
      positions.add(send.change!.vout);
      expect(send.payment!.vout).to.equal(1 - send.change!.vout);
    }
    expect([...positions].sort()).to.deep.equal([0, 1]);
  });

  it("signs through any signer: a remote one answering promises and high-s signatures gets low-s signatures in the transaction", async function () {
    const base = sender();
    let highS = 0;
    const remote: BitcoinSigner = {
      publicKey: base.signer.publicKey,
      async sign(hash) {
        const signature = noble.Signature.fromCompact(await base.signer.sign(hash));
        // A KMS normalises nothing: hand back the other signature of the pair, s → n − s.
        highS++;
        return new noble.Signature(signature.r, CURVE_ORDER - signature.s).toCompactRawBytes();
      },
    };
    const coins = [base.coinOf(500_000n), base.coinOf(300_000n)];
    const send = await buildSend({ sender: { ...base.sender, signer: remote }, coins, to: RECIPIENT, amount: 700_000n, feeRate: 2 });
    expect(highS).to.equal(2);
    for (const input of decode(send).ins) {
      const der = input.witness[0]!.subarray(0, -1);
      expect(noble.Signature.fromDER(der).hasHighS()).to.equal(false);
    }
  });

  it("refuses a signature that does not verify (a signer of another key), before anything is finalised", async function () {
    const { signer: other } = sender();
    const { sender: from, coinOf, signer } = sender();
    const impostor: BitcoinSigner = { publicKey: signer.publicKey, sign: (hash) => other.sign(hash) };
    const coins = [coinOf(500_000n)];
    let thrown: unknown;
    try {
      await buildSend({ sender: { ...from, signer: impostor }, coins, to: RECIPIENT, amount: 100_000n, feeRate: 2 });
    } catch (error) {
      thrown = error;
    }
    expect(String(thrown)).to.match(/does not verify/);
  });

  it("refuses a p2tr send through a signer that cannot tweak its key nor sign Schnorr (a KMS key)", async function () {
    const { sender: from, coinOf, signer } = sender("p2tr");
    const ecdsaOnly: BitcoinSigner = { publicKey: signer.publicKey, sign: (hash) => signer.sign(hash) };
    await expectServiceError(
      buildSend({ sender: { ...from, signer: ecdsaOnly }, coins: [coinOf(100_000n)], to: RECIPIENT, amount: 10_000n, feeRate: 1 }),
      ErrorCode.UNSUPPORTED_OPERATION,
      "addressType",
    );
  });

  it("refuses typed: a key that does not derive the sender, a fee rate out of range, an amount of 0 or over the supply", async function () {
    const { sender: from, coinOf, privateKey } = sender();
    const coins = [coinOf(100_000n)];
    const secrets = [privateKey];
    const other = createBitcoinKeyPair("regtest").address;
    await expectServiceError(
      buildSend({ sender: { ...from, address: other }, coins, to: RECIPIENT, amount: 10_000n, feeRate: 1 }),
      ErrorCode.KEY_SENDER_MISMATCH,
      "sender",
      secrets,
    );
    for (const feeRate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 10_001]) {
      await expectServiceError(
        buildSend({ sender: from, coins, to: RECIPIENT, amount: 10_000n, feeRate }),
        ErrorCode.INVALID_ARGUMENT,
        "feeRate",
      );
    }
    for (const amount of [0n, -5n, 2_100_000_000_000_001n]) {
      await expectServiceError(buildSend({ sender: from, coins, to: RECIPIENT, amount, feeRate: 1 }), ErrorCode.INVALID_ARGUMENT, "amount");
    }
    // Dust depends on the recipient's script: 546 sat for p2pkh, 294 for p2wpkh.
    const legacy = createBitcoinKeyPair("regtest", "p2pkh").address;
    await expectServiceError(
      buildSend({ sender: from, coins, to: legacy, amount: 545n, feeRate: 1 }),
      ErrorCode.INVALID_ARGUMENT,
      "amount",
    );
    expect((await buildSend({ sender: from, coins, to: legacy, amount: 546n, feeRate: 1 })).payment!.value).to.equal(546n);
  });

  it("leaves alone a listed coin whose script is not the sender's", async function () {
    const { sender: from, coinOf } = sender();
    const foreign = { ...coinOf(5_000_000n), scriptPubKey: "0014" + "00".repeat(20) };
    const send = await buildSend({ sender: from, coins: [foreign, coinOf(200_000n)], to: RECIPIENT, amount: 100_000n, feeRate: 1 });
    expect(send.inputs.map((input) => input.value)).to.deep.equal([200_000n]);
  });

  describe("replacement (BIP 125)", function () {
    it("spends the same inputs, pays the same payment, and outbids the original by the incremental relay fee of its own size", async function () {
      const { sender: from, coinOf } = sender();
      const send = await buildSend({ sender: from, coins: [coinOf(1_000_000n)], to: RECIPIENT, amount: 300_000n, feeRate: 2 });
      const bump = await buildReplacement({ sender: from, previous: send, feeRate: 2.5 });
      expect(bump.inputs).to.deep.equal(send.inputs);
      expect(bump.payment).to.deep.include({ address: RECIPIENT, value: 300_000n });
      // Fees follow the estimated 141 vB (the signed size may be a byte less). 2.5 sat/vB would pay 353 sat; rule 4
      // asks for the original's 282 plus 1 sat/vB of the replacement's own size.
      expect(send.fee).to.equal(282n);
      expect(bump.fee).to.equal(282n + 141n);
      expect(bump.change!.value).to.equal(send.change!.value - 141n);
      expect((await buildReplacement({ sender: from, previous: send, feeRate: 40 })).fee).to.equal(40n * 141n);
      // Descendants it evicts must be outbid too (rule 3).
      const withDescendants = await buildReplacement({ sender: from, previous: send, feeRate: 2.5, descendantFees: 5_000n });
      expect(withDescendants.fee).to.equal(282n + 5_000n + 141n);
    });

    it("refuses a rate not above the original's, naming feeRate", async function () {
      const { sender: from, coinOf } = sender();
      const send = await buildSend({ sender: from, coins: [coinOf(1_000_000n)], to: RECIPIENT, amount: 300_000n, feeRate: 5 });
      const error = await expectServiceError(
        buildReplacement({ sender: from, previous: send, feeRate: 5 }),
        ErrorCode.INVALID_ARGUMENT,
        "feeRate",
      );
      expect(error.details!.previousFeeRate).to.be.at.least(5);
    });

    it("drops a change the higher fee brings under dust, adds a confirmed coin when that is not enough, else refuses", async function () {
      const { sender: from, coinOf } = sender();
      const original = coinOf(100_000n);
      const send = await buildSend({ sender: from, coins: [original], to: RECIPIENT, amount: 99_300n, feeRate: 1 });
      expect(send.change!.value).to.equal(100_000n - 99_300n - 141n);
      // 2 sat/vB: 282 sat leaves 418 of change (≥ 294): kept. 4 sat/vB: 564 would leave 136: dropped, all 700 sat go to the fee.
      expect((await buildReplacement({ sender: from, previous: send, feeRate: 2 })).change!.value).to.equal(418n);
      const dropped = await buildReplacement({ sender: from, previous: send, feeRate: 4 });
      expect(dropped.change).to.equal(undefined);
      expect(dropped.fee).to.equal(700n);

      const unconfirmed = coinOf(80_000n, 0);
      const confirmed = coinOf(50_000n, 1);
      const ofChange = { txid: send.txid, vout: send.change!.vout, value: send.change!.value, confirmations: 0 };
      const added = await buildReplacement({ sender: from, previous: send, feeRate: 10, coins: [unconfirmed, confirmed, ofChange] });
      expect(added.inputs).to.deep.equal([send.inputs[0], { txid: confirmed.txid, vout: 0, value: 50_000n }]);

      const refused = await expectServiceError(
        buildReplacement({ sender: from, previous: send, feeRate: 10, coins: [unconfirmed, ofChange] }),
        ErrorCode.INSUFFICIENT_FUNDS,
        "feeRate",
      );
      expect(refused.details).to.deep.include({ available: "100000" });
    });

    it("cancels: the same inputs, one output back to the sender; refused when what is left would be dust", async function () {
      const { sender: from, coinOf, address } = sender();
      const send = await buildSend({ sender: from, coins: [coinOf(600_000n)], to: RECIPIENT, amount: 500_000n, feeRate: 3 });
      const cancel = await buildCancel({ sender: from, previous: send, feeRate: 6 });
      const tx = decode(cancel);
      expect(tx.outs).to.have.length(1);
      expect(lib.address.fromOutputScript(tx.outs[0]!.script, REGTEST)).to.equal(address);
      expect(cancel.change).to.deep.equal({ address, value: 600_000n - cancel.fee, vout: 0 });
      expect(cancel.payment).to.equal(undefined);
      expect(cancel.fee >= send.fee + BigInt(cancel.vsize)).to.equal(true);

      const small = await buildSend({ sender: from, coins: [coinOf(1_000n)], to: RECIPIENT, amount: 300n, feeRate: 1 });
      const tooSmall = await expectServiceError(
        buildCancel({ sender: from, previous: small, feeRate: 9 }),
        ErrorCode.INSUFFICIENT_FUNDS,
        "feeRate",
      );
      // 110 vB at 9 sat/vB, plus the 294 sat an output must keep.
      expect(tooSmall.details).to.deep.include({ needed: String(990 + 294), available: "1000" });
    });
  });

  describe("the local signer", function () {
    it("takes WIF or 32-byte hex alike, and never shows the key when printed or serialised", function () {
      const { privateKey } = createBitcoinKeyPair("regtest");
      const keyBytes = bitcoinLibraries().ECPair.fromWIF(privateKey, REGTEST).privateKey!;
      const hex = Buffer.from(keyBytes).toString("hex");
      const fromWif = localBitcoinSigner(privateKey, "regtest");
      const fromHex = localBitcoinSigner(hex, "regtest");
      expect(Buffer.from(fromHex.publicKey).equals(Buffer.from(fromWif.publicKey))).to.equal(true);
      for (const printed of [inspect(fromWif, { showHidden: true, depth: 5 }), JSON.stringify(fromWif), String(Object.values(fromWif))]) {
        expect(printed).not.to.include(hex);
        expect(printed).not.to.include(privateKey);
      }
    });

    it("refuses a WIF of another network and a malformed key, quoting neither", async function () {
      const { privateKey: mainnetKey } = createBitcoinKeyPair("mainnet");
      const error = await expectServiceError(() => localBitcoinSigner(mainnetKey, "regtest"), ErrorCode.INVALID_PRIVATE_KEY, "privateKey", [
        mainnetKey,
      ]);
      expect(error.message).to.match(/another network/);
      const notAKey = "f".repeat(64);
      await expectServiceError(() => localBitcoinSigner(notAKey, "regtest"), ErrorCode.INVALID_PRIVATE_KEY, "privateKey", [notAKey]);
      expectNoSecret(error, [mainnetKey]);
    });
  });
});
