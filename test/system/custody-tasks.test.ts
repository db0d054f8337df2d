import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Mnemonic, Wallet, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";

// The keystore of held wallets through Hardhat's CLI (docs/custody.md), on a live pair (anvil mining on send): make it,
// create a held wallet, launch from it with --from (no key read), back the seed up, rotate the passphrase, then restore
// the seed into a fresh store whose held wallet it must derive, and refuse another seed's.

describe("custody tasks through Hardhat's CLI: held wallets, backup, rotation, restore (anvil)", function () {
  this.timeout(300_000);
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  const FIRST = "the first passphrase of the keystore";
  const SECOND = "the second passphrase, after rotation";
  let anvil: AnvilNode;
  let dataDir: string;
  const runs: CliResult[] = [];

  const hardhat = async (env: Record<string, string>, ...args: string[]) => {
    const result = await runHardhat(args, {
      cwd,
      env: cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir, TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: anvil.url, ...env }),
      timeoutMs: 120_000,
    });
    runs.push(result);
    return result;
  };
  const json = async (env: Record<string, string>, ...args: string[]) => {
    const result = await hardhat(env, ...args, "--json");
    expect(result.code, `hardhat ${args.join(" ")}\n${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout);
  };

  before(async function () {
    anvil = await startAnvil();
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-custody-cli-"));
  });

  after(async function () {
    await anvil?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("makes the keystore, holds a wallet, launches from it with --from, backs up, rotates and restores", async function () {
    const first = { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: FIRST };
    expect(await json(first, "custody:init")).to.include({ made: true, state: "unlocked" });
    const held = await json(first, "wallet:create", ...pair, "--custody", "service");
    expect(held).to.include({ custody: "service", source: "derived" });
    expect(held).to.not.have.property("privateKey");
    await anvil.rpc("anvil_setBalance", [held.address, toQuantity(10n ** 20n)]);

    // One for an API key: that key's over HTTP. An id the store does not know is refused, naming the option.
    const apiKey = await json({}, "apikey:create", "--label", "backend");
    const owned = await json(first, "wallet:create", ...pair, "--custody", "service", "--api-key-id", apiKey.id);
    const unknownKey = await hardhat(first, "wallet:create", ...pair, "--custody", "service", "--api-key-id", "no-such-key");
    expect(unknownKey.code).to.not.equal(0);
    expect(unknownKey.stderr).to.match(/no API key no-such-key in the sqlite store/);
    {
      const { DatabaseSync } = await import("node:sqlite");
      const database = new DatabaseSync(path.join(dataDir, "store.sqlite"), { readOnly: true });
      const owners = database.prepare("select address, api_key_id from held_wallets order by created_at").all();
      database.close();
      expect(owners.map((row) => [row.address, row.api_key_id])).to.deep.equal([
        [held.address.toLowerCase(), null],
        [owned.address.toLowerCase(), apiKey.id],
      ]);
    }
    const launched = await json(
      first,
      "token:launch",
      ...pair,
      "--type",
      "ERC20",
      "--name",
      "Held",
      "--symbol",
      "HLD",
      "--from",
      held.address,
    );
    expect(launched).to.include({ status: "mined", sender: held.address });

    // Locked (no passphrase): the same launch is refused, naming the variable; nothing is sent.
    const locked = await hardhat({}, "token:launch", ...pair, "--type", "ERC20", "--name", "No", "--symbol", "NO", "--from", held.address);
    expect(locked.code).to.not.equal(0);
    expect(locked.stderr).to.match(/KEYSTORE_LOCKED.*TOKEN_SERVICE_KEYSTORE_PASSPHRASE/);

    const { mnemonic } = await json(first, "custody:backup");
    expect(Mnemonic.isValidMnemonic(mnemonic), "24 BIP-39 words").to.equal(true);
    expect(mnemonic.split(" ")).to.have.lengthOf(24);
    // The backup derives the held wallet, as any BIP-44 wallet would (m/44'/60'/0'/0/0).
    expect(Wallet.fromPhrase(mnemonic).address).to.equal(held.address);

    expect(await json({ ...first, NEXT: SECOND }, "custody:passphrase", "--new-passphrase-env", "NEXT")).to.include({ rotated: true });
    const old = await hardhat(
      first,
      "token:launch",
      ...pair,
      "--type",
      "ERC20",
      "--name",
      "Old",
      "--symbol",
      "OLD",
      "--from",
      held.address,
    );
    expect(old.stderr, "the old passphrase no longer opens it").to.match(/KEYSTORE_LOCKED/);
    const again = await json(
      { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: SECOND },
      "token:launch",
      ...pair,
      "--type",
      "ERC20",
      "--name",
      "New",
      "--symbol",
      "NEW",
      "--from",
      held.address,
    );
    expect(again.status).to.equal("mined");

    // Restore into a store without a keystore: another seed is refused; the backed-up one derives the held wallet.
    const store = path.join(dataDir, "store.sqlite");
    const { DatabaseSync } = await import("node:sqlite");
    const database = new DatabaseSync(store);
    database.exec("delete from keystore");
    database.close();
    const stranger = await hardhat(
      { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: SECOND, WORDS: Mnemonic.fromEntropy(Wallet.createRandom().privateKey).phrase },
      "custody:restore",
      "--mnemonic-env",
      "WORDS",
    );
    expect(stranger.code).to.not.equal(0);
    expect(stranger.stderr).to.match(/another seed's: it does not derive the held wallet/);
    expect(
      await json({ TOKEN_SERVICE_KEYSTORE_PASSPHRASE: SECOND, WORDS: mnemonic }, "custody:restore", "--mnemonic-env", "WORDS"),
    ).to.deep.equal({
      restored: true,
      // The operator's and the API key's: both derive from the one seed.
      heldWallets: 2,
    });
    const restored = await json(
      { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: SECOND },
      "token:launch",
      ...pair,
      "--type",
      "ERC20",
      "--name",
      "Back",
      "--symbol",
      "BCK",
      "--from",
      held.address,
    );
    expect(restored.status).to.equal("mined");
    // A new held wallet continues after the restored ones: not the first's address again.
    const next = await json({ TOKEN_SERVICE_KEYSTORE_PASSPHRASE: SECOND }, "wallet:create", ...pair, "--custody", "service");
    expect(next.address).to.not.equal(held.address);

    // No run printed a passphrase; only the backup printed the words.
    for (const run of runs) {
      const output = `${run.stdout}${run.stderr}`;
      expect(output).to.not.include(FIRST);
      expect(output).to.not.include(SECOND);
    }
  });
});
