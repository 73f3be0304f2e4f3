// Lists triples one N-Triples line each, sorted and distinct, spelled alike whatever read
// them, so that two lists compare as sets:
//   node hdt_triples.js hdt FILE.hdt   the triples hdt-cpp (the npm `hdt` package) reads from
//                                      an HDT file; each is then looked up again by its three
//                                      terms, which must find exactly it (the dictionary's
//                                      string-to-id lookups, the shared section's ids)
//   node hdt_triples.js nq FILE.nq     the triples of an N-Quads file, graph names dropped
//                                      (n3's parser, blank node labels kept)
// Finds its packages in $LDWARC_NPM_TOOLS (else .npm-tools of the worktree), where
// .ci/setup-interop.sh installs them. Exit status 1 when a lookup fails.
"use strict";
const fs = require("fs");
const path = require("path");

const tools = process.env.LDWARC_NPM_TOOLS || path.join(__dirname, "..", "..", ".npm-tools");
const need = (name) => require(path.join(tools, "node_modules", name));

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";

function spell(term) {
  switch (term.termType) {
    case "NamedNode":
      return `<${term.value}>`;
    case "BlankNode":
      return `_:${term.value}`;
    case "Literal": {
      const lexical = JSON.stringify(term.value);
      if (term.language) return `${lexical}@${term.language.toLowerCase()}`;
      const datatype = term.datatype ? term.datatype.value : XSD_STRING;
      if (datatype === XSD_STRING || datatype === RDF_LANG_STRING) return lexical;
      return `${lexical}^^<${datatype}>`;
    }
    default:
      throw new Error(`unexpected term type ${term.termType}`);
  }
}

function print(quads) {
  const lines = new Set(quads.map((q) => `${spell(q.subject)} ${spell(q.predicate)} ${spell(q.object)} .`));
  const sorted = [...lines].sort();
  process.stdout.write(sorted.map((line) => `${line}\n`).join(""));
}

async function fromHdt(file) {
  const hdt = need("hdt");
  const document = await hdt.fromFile(file);
  const { triples } = await document.searchTriples(null, null, null, { offset: 0 });
  for (const triple of triples) {
    const found = await document.searchTriples(triple.subject, triple.predicate, triple.object);
    if (found.triples.length !== 1 || !found.triples[0].equals(triple)) {
      console.error(
        `lookup of ${spell(triple.subject)} ${spell(triple.predicate)} ${spell(triple.object)} found ${found.triples.length}`,
      );
      process.exitCode = 1;
    }
  }
  await document.close();
  print(triples);
}

function fromNQuads(file) {
  const { Parser } = need("n3");
  const parser = new Parser({ format: "N-Quads", blankNodePrefix: "" });
  print(parser.parse(fs.readFileSync(file, "utf8")));
}

const [mode, file] = process.argv.slice(2);
if (mode === "hdt" && file) {
  fromHdt(file).catch((error) => {
    console.error(`hdt: ${error.message}`);
    process.exit(1);
  });
} else if (mode === "nq" && file) {
  fromNQuads(file);
} else {
  console.error("usage: hdt_triples.js hdt FILE.hdt | hdt_triples.js nq FILE.nq");
  process.exit(2);
}
