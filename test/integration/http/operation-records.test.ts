import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import { getAddress } from "ethers";

import { startServer, type RunningServer } from "../../helpers/http-server.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("HTTP service — operation records: checksummed addresses, transitions, no key", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  it("stores the addresses of a launch and a mint checksummed however they were sent, with every transition, and never the key", async function () {
    const { body: wallet } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
    const { body: holder } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
    await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address.toLowerCase() });
    const launch = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC721",
      token: { name: "Lower", symbol: "LOW", uri: "ipfs://x/" },
      sender: wallet.address.toLowerCase(),
      privateKey: wallet.privateKey,
    });
    expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
    const mint = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
      ...SEPOLIA,
      type: "ERC721",
      contractAddress: launch.body.contractAddress.toLowerCase(),
      to: holder.address.toLowerCase(),
      sender: wallet.address.toLowerCase(),
      privateKey: wallet.privateKey,
    });
    expect(mint.status, JSON.stringify(mint.body)).to.equal(200);
    expect(mint.body).to.include({ status: "mined", tokenId: "1" });

    const { body: page } = await api.call("GET", "/api/v1/operations?limit=10");
    const [mintRecord, launchRecord, faucetRecord] = page.items;
    expect(launchRecord).to.include({
      kind: "launch",
      sender: getAddress(wallet.address),
      contractAddress: getAddress(launch.body.contractAddress),
      status: "mined",
    });
    expect(mintRecord).to.include({
      kind: "mint",
      sender: getAddress(wallet.address),
      contractAddress: getAddress(launch.body.contractAddress),
      status: "mined",
    });
    expect(mintRecord.params.to).to.equal(getAddress(holder.address));
    expect(mintRecord.result).to.deep.equal({ tokenId: "1" });
    expect(faucetRecord.params.address).to.equal(getAddress(wallet.address));
    for (const record of [launchRecord, mintRecord]) {
      expect(record.transitions.map((transition: { status: string }) => transition.status)).to.deep.equal(["signed", "pending", "mined"]);
      expect(record).not.to.have.property("rawTransaction");
    }

    // The database holds the raw transactions (public once broadcast) but never a private key.
    const secret = Buffer.from(wallet.privateKey.slice(2));
    for (const name of await readdir(api.dataDir)) {
      const file = path.join(api.dataDir, name);
      if (!name.startsWith("store.sqlite")) continue;
      expect((await readFile(file)).includes(secret), `${name} holds the private key`).to.equal(false);
    }
  });
});
