import { HDNodeWallet, Mnemonic, Wallet } from "ethers";

/** A configuration variable as Hardhat resolves it: `get()` reads the value (a key, a mnemonic) when asked. */
interface ResolvedVariable {
  get(): Promise<string>;
}

/** The `accounts` of a Hardhat network config (`hre.config.networks.<name>` or a connection's `networkConfig`). */
type HardhatAccounts =
  | "remote"
  | Array<ResolvedVariable | { privateKey: ResolvedVariable }>
  | { mnemonic: ResolvedVariable; passphrase: ResolvedVariable; path: string; initialIndex: number };

/**
 * The signer of a Hardhat network's configured account number `index`, for local signing. hardhat-ethers' signers
 * cannot sign without sending (`signTransaction` is not implemented there, and EDR has no `eth_signTransaction`), so
 * this reads the account's key (or HD mnemonic) from the network's configuration variables, in this process only.
 */
export async function hardhatAccountSigner(networkConfig: { accounts: unknown }, index = 0): Promise<Wallet | HDNodeWallet> {
  const accounts = networkConfig.accounts as HardhatAccounts;
  if (accounts === "remote") {
    throw new Error('this network\'s accounts are "remote" (the node holds the keys): give launchToken an external signer instead');
  }
  if (Array.isArray(accounts)) {
    const account = accounts[index];
    if (account === undefined) throw new Error(`the network configures ${accounts.length} accounts; there is no account ${index}`);
    return new Wallet(await ("privateKey" in account ? account.privateKey : account).get());
  }
  const mnemonic = Mnemonic.fromPhrase(await accounts.mnemonic.get(), await accounts.passphrase.get());
  return HDNodeWallet.fromMnemonic(mnemonic, `${accounts.path}/${accounts.initialIndex + index}`);
}
