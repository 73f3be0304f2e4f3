// Extracts the Microdata of one HTML page as RDF with microdata-rdf-streaming-parser (a
// processor nobody at ldwarc wrote) and prints it as N-Quads.
//
// Usage: node microdata_rdf.js PAGE.html BASE_IRI
// Finds its packages in $LDWARC_NPM_TOOLS (else .npm-tools of the worktree), where
// .ci/setup-interop.sh installs them.
"use strict";
const fs = require("fs");
const path = require("path");

const tools = process.env.LDWARC_NPM_TOOLS || path.join(__dirname, "..", "..", ".npm-tools");
const need = (name) => require(path.join(tools, "node_modules", name));
const { MicrodataRdfParser } = need("microdata-rdf-streaming-parser");
const { Writer } = need("n3");

const [page, base] = process.argv.slice(2);
if (!page || !base) {
  console.error("usage: microdata_rdf.js PAGE.html BASE_IRI");
  process.exit(2);
}
const parser = new MicrodataRdfParser({ baseIRI: base });
const writer = new Writer({ format: "N-Quads" });
parser.on("data", (quad) => writer.addQuad(quad));
parser.on("error", (error) => {
  console.error(`microdata-rdf-streaming-parser: ${error.message}`);
  process.exit(1);
});
parser.on("end", () =>
  writer.end((error, text) => {
    if (error) {
      console.error(error.message);
      process.exit(1);
    }
    process.stdout.write(text);
  }),
);
parser.write(fs.readFileSync(page, "utf8"));
parser.end();
