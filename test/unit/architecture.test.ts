import { expect } from "chai";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// The layout's rules, checked on the import statements of src/ and tasks/ (type-only imports included, as madge counts
// them): no import circle; no import climbs a floor; domain/ is pure; the core knows no Hardhat, HTTP or SQL; no door
// imports another.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

function sources(directory: string): string[] {
  return readdirSync(path.join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"));
}

const files = [...sources("src"), ...sources("tasks")];
const imports = new Map<string, { local: string[]; packages: string[] }>();
for (const file of files) {
  const local: string[] = [];
  const packages: string[] = [];
  for (const [, specifier] of readFileSync(path.join(ROOT, file), "utf8").matchAll(SPECIFIER)) {
    if (specifier!.startsWith("."))
      local.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!)).replace(/\.js$/, ".ts"));
    else packages.push(specifier!);
  }
  imports.set(file, { local, packages });
}

const under = (folder: string) => files.filter((file) => file.startsWith(`${folder}/`));

describe("architecture: the import graph of src/ and tasks/", function () {
  it("reads every module (the checks below are not vacuous)", function () {
    expect(under("src/domain").length).to.be.greaterThan(5);
    expect(under("src/core").length).to.be.greaterThan(5);
    for (const [file, { local }] of imports)
      for (const target of local)
        expect(
          files.includes(target) || existsSync(path.join(ROOT, target.replace(/\.ts$/, ".d.ts"))) || target.endsWith(".json"),
          `${file} imports ${target}`,
        ).to.equal(true);
  });

  it("has no import circle", function () {
    const state = new Map<string, "open" | "done">();
    const circles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") return void circles.push([...trail.slice(trail.indexOf(file)), file].join(" > "));
      state.set(file, "open");
      for (const target of imports.get(file)?.local ?? []) visit(target, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(circles).to.deep.equal([]);
  });

  it("keeps domain/ pure: it imports only domain/ and ethers' helpers", function () {
    for (const file of under("src/domain")) {
      const { local, packages } = imports.get(file)!;
      expect(
        local.filter((target) => !target.startsWith("src/domain/")),
        file,
      ).to.deep.equal([]);
      expect(
        packages.filter((name) => name !== "ethers"),
        file,
      ).to.deep.equal([]);
    }
  });

  it("keeps the core free of Hardhat, HTTP and SQL", function () {
    const forbidden = /^(hardhat|@nomicfoundation\/|express|kysely|pg|node:sqlite)/;
    for (const file of under("src/core")) {
      const { local, packages } = imports.get(file)!;
      expect(
        packages.filter((name) => forbidden.test(name)),
        file,
      ).to.deep.equal([]);
      expect(
        local.filter(
          (target) =>
            /^src\/(http|hardhat|client|webhooks)\//.test(target) ||
            /^src\/store\/(kysely|postgres|sqlite|open-store|migrations)/.test(target),
        ),
        file,
      ).to.deep.equal([]);
    }
  });

  it("has no import that climbs a floor: each module imports only from its own floor or those below", function () {
    // The floors of src/, bottom to top, as `farm-studio look src` draws them: a module names what it needs from below
    // and is handed the rest (the core gets its store from the composition root). A new folder or top-level file must
    // be given its floor here.
    const FLOORS: ReadonlyArray<readonly string[]> = [
      ["domain"],
      ["config", "webhooks", "types.ts"],
      ["chains", "type-extensions.ts"],
      ["core"],
      ["store"],
      ["compose.ts"],
      ["http"],
      ["hardhat"],
      ["index.ts"],
      ["api.ts"],
    ];
    // The HTTP client stands apart: it is shipped on its own and shares nothing with the service's modules.
    const APART = "client";
    const room = (file: string) => file.split("/")[1]!;
    const floorOf = (file: string) => FLOORS.findIndex((rooms) => rooms.includes(room(file)));
    const unplaced = under("src").filter((file) => room(file) !== APART && floorOf(file) === -1);
    expect(unplaced, "modules of no floor").to.deep.equal([]);
    const climbs: string[] = [];
    for (const file of under("src"))
      for (const target of imports.get(file)!.local.filter((target) => target.startsWith("src/"))) {
        const crossesApart = (room(file) === APART) !== (room(target) === APART);
        if (crossesApart || (room(file) !== APART && floorOf(target) > floorOf(file))) climbs.push(`${file} > ${target}`);
      }
    expect(climbs).to.deep.equal([]);
  });

  it("lets no door import another, except `serve`, the task that starts the HTTP door", function () {
    const doors = ["src/http", "src/hardhat", "src/client"];
    for (const door of doors) {
      for (const file of under(door)) {
        const others = imports.get(file)!.local.filter((target) => doors.some((other) => other !== door && target.startsWith(`${other}/`)));
        if (file === "src/hardhat/tasks/serve.ts")
          expect(
            others.every((target) => target.startsWith("src/http/")),
            file,
          ).to.equal(true);
        else expect(others, file).to.deep.equal([]);
      }
    }
  });
});

describe("architecture: file lengths", function () {
  // A file past this many lines holds more than one job: split it along what each part is about.
  const MAX_LINES = 600;
  const FOLDERS = ["src", "tasks", "test", "bench", "scripts"];
  // Written by tools, not by hand, each named here with what writes it; they may be any length.
  const GENERATED = [
    "src/client/openapi.d.ts", // npm run generate:client (openapi-typescript)
    "src/artifacts/", // npm run build:contracts (compiled contracts, token variants)
  ];

  it("has no hand-written .ts file over 600 lines under src/, tasks/, test/, bench/ and scripts/", function () {
    const all = FOLDERS.flatMap((folder) =>
      readdirSync(path.join(ROOT, folder), { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.parentPath.split(path.sep).includes("node_modules"))
        .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join("/")),
    );
    expect(all.length, "the check reads the files").to.be.greaterThan(300);
    const long = all
      .filter((file) => !GENERATED.some((generated) => (generated.endsWith("/") ? file.startsWith(generated) : file === generated)))
      .map((file) => ({ file, lines: readFileSync(path.join(ROOT, file), "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).to.deep.equal([]);
  });
});
