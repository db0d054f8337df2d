import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { MAX_MONEY_SATOSHIS, btcToSatoshis, satoshisToBtcString } from "./amounts.js";
import { type BitcoindRpc, isRpcError } from "./bitcoind-rpc.js";
import type { NodeWallets } from "./node-wallets.js";
import { Serial } from "./serial.js";

/** The node wallet the faucet pays from (and mines to). */
export const FAUCET_WALLET = "token-service-faucet";

/** Fee rate of faucet payments, sat/vB: above any default relay minimum, independent of -fallbackfee. */
const FEE_RATE = 10;
/** Kept above the amount so the payment's fee is covered. */
const FEE_MARGIN = 100_000n;
const MINING_ROUNDS = 5;
/** Blocks until a coinbase output is spendable. */
const COINBASE_MATURITY = 100;

/** Regtest only: pays from a node wallet, mining to it when it runs short, and mines each payment into a block. */
export class RegtestFaucet {
  private readonly payments = new Serial();
  private miningAddress: string | undefined;

  constructor(
    private readonly rpc: BitcoindRpc,
    private readonly wallets: NodeWallets,
  ) {}

  fund(address: string, amount: bigint): Promise<{ transactionHash: string }> {
    if (amount > MAX_MONEY_SATOSHIS) throw invalidArgument("amount", "amount exceeds the 21 million BTC supply");
    return this.payments.run(async () => {
      await this.wallets.ensure(FAUCET_WALLET, { watchOnly: false });
      const miningAddress = await this.ownAddress();
      await this.ensureBalance(amount, miningAddress);
      let transactionHash: string;
      try {
        transactionHash = await this.rpc.call<string>(
          "sendtoaddress",
          { address, amount: satoshisToBtcString(amount), fee_rate: FEE_RATE },
          { wallet: FAUCET_WALLET },
        );
      } catch (error) {
        // The node's code for this varies between versions (-3, -4, -6); its message does not.
        if (isRpcError(error) && /amount too small|dust/i.test(error.rpcMessage)) {
          throw invalidArgument("amount", `amount is too small to send: ${error.rpcMessage}`);
        }
        throw error;
      }
      await this.rpc.call("generatetoaddress", [1, miningAddress]);
      return { transactionHash };
    });
  }

  private async ownAddress(): Promise<string> {
    this.miningAddress ??= await this.rpc.call<string>("getnewaddress", ["faucet", "bech32"], { wallet: FAUCET_WALLET });
    return this.miningAddress;
  }

  private async ensureBalance(amount: bigint, miningAddress: string): Promise<void> {
    const needed = amount + FEE_MARGIN;
    let spendable = 0n;
    for (let round = 0; round <= MINING_ROUNDS; round++) {
      const balances = await this.rpc.call<{ mine: { trusted: number } }>("getbalances", [], { wallet: FAUCET_WALLET });
      spendable = btcToSatoshis(balances.mine.trusted);
      if (spendable >= needed) return;
      if (round < MINING_ROUNDS) await this.rpc.call("generatetoaddress", [COINBASE_MATURITY + 1, miningAddress]);
    }
    throw new TokenServiceError(
      ErrorCode.INSUFFICIENT_FUNDS,
      `the regtest faucet wallet holds ${satoshisToBtcString(spendable)} BTC after mining; ask for a smaller amount`,
      { field: "amount" },
    );
  }
}
