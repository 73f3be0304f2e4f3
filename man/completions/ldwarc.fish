# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ldwarc_global_optspecs
    string join \n v/verbose q/quiet log-format= h/help V/version
end

function __fish_ldwarc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ldwarc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ldwarc_using_subcommand
    set -l cmd (__fish_ldwarc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ldwarc -n "__fish_ldwarc_needs_command" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_needs_command" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -s V -l version -d 'Print version'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "check" -d 'Validate WARC/ARC files: framing, gzip members, mandatory fields, digests, revisits'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "ls" -d 'List records: offset, length, type, date, status, mime, payload digest, target URI'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "extract" -d 'Write one record (or its headers, or its payload) as warcio extract does'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "index" -d 'Bring the capture index up to date with the WARC tree (incremental), or rebuild or verify it'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "cdx" -d 'Export the index as byte-sorted CDXJ (as cdxj-indexer writes) or CDX-11, streamed'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "query" -d 'Find captures by URL and time, with the pywb CDX server\'s semantics'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "crawl" -d 'Crawl Linked Data politely into the archive: content negotiation, rounds, robots.txt'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "replay" -d 'The RDF graph of a URL as it was at a date (revisits and redirects resolved)'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "history" -d 'Every capture of a URL with status, digest, and whether its RDF graph changed'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "snapshot" -d 'The dataset as of a date: one named graph per document, as N-Quads or TriG, streamed'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "describe" -d 'The archive as VoID + DCAT 3: a catalogue of its datasets, one per domain and crawl day'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "diff" -d 'Statements added and removed between two captures, two dates, or two RDF files'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "when" -d 'The intervals during which the statements matching a triple pattern held, per document'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "sparql" -d 'A SPARQL 1.1 query over the dataset as of a date: each document a named graph'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "parse" -d 'Parse RDF files or HTML/XHTML pages (RDFa, Microdata, JSON-LD) to any RDF syntax'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "demo" -d 'A self-contained tour: serve a sample Linked Data web on loopback, crawl it three times, replay'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "stats" -d 'Change statistics of the archive: per-URL change rates, ages, lifetimes, Weibull fit, plots'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "simulate" -d 'Replay change histories against re-crawl strategies: recall, precision, downloads'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "monitor" -d 'The observatory loop: re-crawl a kernel and its segment as the strategy says, detect changes, adapt'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "serve" -d 'Serve the archive: CDX API, Wayback-style replay, Memento TimeGate/TimeMaps, pages'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "recover" -d 'Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "plan" -d 'Plan re-crawling from the change models: (α, β)-currency periods and bandwidth'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "export" -d 'Package the archive (or a selection) as a WACZ file: WARCs, CDXJ index, pages, datapackage'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "import" -d 'Bring a WACZ package\'s WARC files into the archive (hashes checked) and index them'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "gen-docs" -d 'Write man pages and shell completions generated from this command line definition'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l format -d 'Output format: text (one line per problem, then a summary line) or json (one JSON object per problem, then one summary object)' -r -f -a "text\t'One line per problem, then a summary line'
json\t'One JSON object per problem and line, then one summary object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l json -d 'Deprecated spelling of --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l strict -d 'Count warnings as failures too'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l lenient -d 'Report as warnings, not errors, the defects widely used tools write into otherwise sound files: WARC-Warcinfo-ID in a warcinfo record (wpull), WARC-Payload-Digest in a metadata record (warcio.js; still verified), a request line without an HTTP version (`GET /path`, ArchiveWeb.page). Every other rule stays as it is'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -s q -l quiet -d 'Print only the summary line'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l format -d 'Output format: text (tab-separated columns) or json (one JSON object per record and line; jsonl is the same)' -r -f -a "text\t'Tab-separated columns, \'-\' where a value is absent'
json\t'One JSON object per record and line'
jsonl\t'The same as json'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l fields -d 'Comma-separated columns to print, in this order: offset, length, type, date, status, mime, digest, uri, id (WARC-Record-ID), file. Default: offset to uri, with file first when several files are listed' -r -f -a "offset\t'Offset of the record (its gzip member) in the file'
length\t'Bytes of the record in the file'
type\t'WARC-Type'
date\t'WARC-Date'
status\t'HTTP status'
mime\t'Media type'
digest\t'Payload digest'
uri\t'Target URI'
id\t'WARC-Record-ID'
file\t'The file the record is in'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l json -d 'Deprecated spelling of --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand extract" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand extract" -l payload -d 'Write only the payload: the body after the HTTP head, de-chunked and with its Content-Encoding undone'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand extract" -l headers -d 'Write only the WARC header and the HTTP head'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand extract" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand extract" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l threads -d 'Reading threads (default: all cores)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l rebuild -d 'Drop the index and rebuild it from every WARC file, on all cores'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l verify -d 'Prove the index and the files agree: every record indexed, every revisit resolved'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l triples -d 'Bring the versioned triple index under <root>/triples up to date too (every new capture parsed as a version of its document; with --rebuild, rebuilt from all). This is the default; the flag says it explicitly'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l no-triples -d 'Leave the versioned triple index as it is (`when`, `/tpf` then refuse until it is updated, and `sparql` replays the WARC files)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l format -d 'Output format: CDXJ, CDX-11, or json (one object per capture: the CDXJ line\'s urlkey and timestamp with its JSON fields, in the same order)' -r -f -a "cdxj\t'`urlkey timestamp {json}` as cdxj-indexer writes it'
cdx11\t'Space-separated CDX with the ` CDX N b a m s k r M S V g` legend'
json\t'One JSON object per capture'
parquet\t'Parquet files in Common Crawl\'s cc-index-table layout, into --output DIR'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l from -d 'Only captures at or after this date (any date form; a partial date: from the start of its period)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l to -d 'Only captures at or before this date (a partial date: to the end of its period)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l zipnum -d 'Write a ZipNum sharded index into DIR instead of printing: gzip blocks of CDXJ lines in `index-*.cdxj.gz` shards, the `index.idx` summary and the `index.loc` file (give pywb `DIR/index.idx` as a collection\'s index). Files are renamed into place when complete; the shards of an index written there before are removed' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l lines-per-block -d 'CDXJ lines per gzip block of a ZipNum index' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l blocks-per-shard -d 'Blocks per shard file of a ZipNum index' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l output -d 'With --format parquet: the folder the Parquet index goes into (Common Crawl\'s cc-index-table layout, DIR/crawl=NAME/subset=…/part-*.parquet). Exporting again adds the captures not exported yet, in new files; the old ones are never rewritten' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l crawl -d 'With --format parquet: the crawl= partition the new files go into (default: LDWARC-<UTC time of the export, YYYYMMDDhhmmss>)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l compression -d 'With --format parquet: compression of the Parquet files' -r -f -a "gzip\t'gzip, as Common Crawl publishes its table'
zstd\t'Zstandard (level 3), the default: smaller than gzip (a 1,000,000-capture export written with these settings by pyarrow: 34.3 MB against 37.8 MB), and every current engine reads it'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l match -d 'How the URL selects captures (default: exact, or inferred from `*.host` / `prefix*`)' -r -f -a "exact\t'The URL itself (and, unlike pywb, only captures whose URL matches case-exactly)'
prefix\t'Every URL starting with the query URL'
host\t'Every URL of the host'
domain\t'Every URL of the host and its subdomains'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l from -d 'Earliest date: a timestamp of 1–14 digits (padded down: 2014 = 20140101000000), ISO 8601 (2014-03-15: from its first second) or now' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l to -d 'Latest date: a timestamp of 1–14 digits (padded up: 2014 = 20141231235959), ISO 8601 (2014-03-15: to its last second) or now' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l closest -d 'Order by distance to this date (same forms as --from; a partial date means the end of its period; on equal distance the earlier capture comes first)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l sort -d 'Result order (closest is implied by --closest)' -r -f -a "ascending\t'Ascending by key and time (the default)'
reverse\t'Descending'
closest\t'By distance to `closest` (the default when `closest` is given)'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l limit -d 'At most N results (0: no limit)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l filter -d '`[!][=|~]field:value` (substring, exact, or regex anchored at the start; `!` negates); repeatable, all must match' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l fields -d 'Fields to print, comma-separated (urlkey,timestamp,url,mime,status,digest,length,offset,filename,redirect)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l format -d 'Output format' -r -f -a "cdxj\t'`urlkey timestamp {json}`'
json\t'One JSON object per line'
text\t'Space-separated fields (`-` when absent)'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l output -d 'The former spelling of --format, noted as deprecated when used' -r -f -a "cdxj\t'`urlkey timestamp {json}`'
json\t'One JSON object per line'
text\t'Space-separated fields (`-` when absent)'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l delay -d 'Minimum time between two requests to one pay-level domain [default: 2s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l concurrency -d 'Requests in flight at most, one per pay-level domain [default: 64]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l timeout -d 'Time allowed for a whole fetch; connecting has the same limit unless --connect-timeout is given [default: 120s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l connect-timeout -d 'Time allowed to connect (TCP and TLS handshake) [default: --timeout]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-crawl-delay -d 'Largest robots.txt Crawl-delay honoured [default: 60s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-retry-after -d 'Longest wait honoured from a 429/503 answer\'s Retry-After [default: 1h]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l user-agent -d 'User-Agent, with a contact URL or address for real crawls' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l accept -d 'Accept header [default: the six RDF syntaxes, q-weighted]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l accept-encoding -d 'Accept-Encoding header; payloads are archived as received [default: gzip, deflate, br]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l follow-predicate -d 'Follow only objects of this predicate (repeatable; default: every IRI is a link)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l proxy -d 'HTTP(S) proxy for all requests (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l resolve -d 'Connect to ADDR (IP or IP:PORT) for HOST; HOST may be *.domain (repeatable)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l ca-file -d 'Also trust the CA certificates in this PEM file for HTTPS (repeatable; in ldwarc.toml relative to the archive root)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l tls-roots -d 'Base set of trusted CAs: the bundled Mozilla roots (plus SSL_CERT_FILE and SSL_CERT_DIR when set) or the operating system\'s store [default: bundled]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-body -d 'Longest body archived; longer bodies are cut and marked WARC-Truncated [default: 50MB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-parse -d 'Most payload bytes parsed for links [default: 16MiB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-decoded -d 'Most bytes a compressed payload may inflate to for link extraction [default: 64MiB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-redirects -d 'Redirects followed from one URL [default: 5]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-file-bytes -d 'Close a WARC file when it reaches this size [default: 1GB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l gzip-level -d 'gzip level of WARC records, 0 (fastest) to 9 (smallest) [default: 6]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l operator -d 'Who runs the crawl: the operator field of every WARC file\'s warcinfo record' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l state -d 'Keep the frontier, crawl log and URL state (and a monitor\'s schedule, observations and cycles) in this shared PostgreSQL database (postgres://user:password@host:port/db) instead of under the root: several nodes crawl together, each holding leases on the pay-level domains it fetches; monitors on several nodes share one schedule and take turns, one cycle at a time' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l node -d 'This node\'s name, in every WARC file name and on its leases [default: the host name]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-plds -d 'With --state: pay-level domain leases held at most at once; a node holds no more than its fair share (domains with queued URLs / live nodes) [default: --concurrency]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l lease-ttl -d 'With --state: how long a lease lasts unless renewed; a dead node\'s domains are taken over after this [default: 30s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l hops -d 'Follow links up to this many hops from the seeds [default: 2]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l join-wait -d 'With --state: how long --join waits for the crawl to appear [default: 60s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-frontier -d 'URLs the crawl keeps in its frontier at most, queued and fetched; new URLs beyond are dropped and counted in the crawl report [default: 1000000]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-frontier-per-pld -d 'URLs of one pay-level domain the frontier keeps at most; new ones beyond are dropped and counted [default: 100000]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-links -d 'New links taken from one document at most (in document order); the rest are dropped and counted [default: 10000]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l crawl-id -d 'With --state: work on this crawl' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l no-conditional -d 'Do not send If-None-Match / If-Modified-Since from earlier captures'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l resume -d 'Continue the last interrupted crawl where it stopped'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l join -d 'With --state: work on the latest unfinished crawl instead of starting one'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l force -d 'With --state: start a new crawl even while another one is running in the database'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l no-triples -d 'Leave the versioned triple index as it is at the end (by default the crawl brings it up to date with the captures it made)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l at -d 'The date, instead of @DATE after the URL (the URL is then taken whole, @ and all)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l format -d 'Output syntax of the graph (default: nt, or nq when the document has named graphs; json is JSON-LD)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l pick -d 'Which capture answers: the latest at or before DATE, or the closest on either side' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l syntax -d 'HTML pages: keep only these embedded syntaxes (comma-separated)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -l raw -d 'Write the archived payload bytes as they were served (Content-Encoding kept)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -l from -d 'Only captures at or after this date (a partial date: from the start of its period); each change is still the change since the capture before, listed or not' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -l to -d 'Only captures at or before this date (a partial date: to the end of its period)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l at -d 'The date, instead of @DATE' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l prefix -d 'Only URLs starting with this prefix' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l host -d 'Only URLs on this host' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l domain -d 'Only URLs on this domain and its subdomains (e.g. a pay-level domain)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l format -d 'Output: N-Quads (graph name = document URL), nq.gz (the same, gzip), TriG, json (JSON Lines: one `{"document": URL, "graph": expanded JSON-LD}` object per document), or hdt (HDT 1.0: the distinct triples of all documents; HDT has no named graphs, so which document said what is not kept). nq.gz and hdt are binary: they need -o FILE, or -o - with standard output not a terminal' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -s o -l output -d 'Write to FILE instead of standard output (replaced only when complete; - is stdout)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l syntax -d 'HTML pages: keep only these embedded syntaxes (comma-separated)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -l format -d 'Output syntax: Turtle, N-Triples or JSON-LD (expanded)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -l base -d 'The URL the archive is served at (`ldwarc serve`): the base of the description\'s IRIs, download URLs and Memento links' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand describe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l format -d 'Output: RDF Patch (A/D lines), N-Triples with +/- prefixes, SPARQL Update, or json (graph diffs: one object with the removed and added statements as N-Triples; dataset diffs: one object per document and a final summary object)' -r -f -a "patch\t'RDF Patch: `D` and `A` lines'
nt\t'N-Triples lines prefixed `-` and `+`'
sparql\t'SPARQL Update (DELETE DATA / INSERT DATA)'
json\t'JSON for programs'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l prefix -d 'Only URLs starting with this prefix' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l host -d 'Only URLs on this host' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l domain -d 'Only URLs on this domain and its subdomains (e.g. a pay-level domain)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l triples -d 'Dataset diffs: also print each changed document\'s statements'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l all -d 'Dataset diffs: also list unchanged documents'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -l exit-code -d 'Exit with status 1 when there are differences (as diff(1) does)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -l from -d 'Only intervals that still held at or after this date (same date forms as replay; a partial date such as 2024-02 means the start of its period here)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -l to -d 'Only intervals that had begun by this date (a partial date means the end of its period, as everywhere else)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand when" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l at -d 'The dataset as it stood at DATE, instead of @DATE before the query (same date forms as replay, now included; a leading @ is allowed)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l prefix -d 'Only URLs starting with this prefix' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l host -d 'Only URLs on this host' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l domain -d 'Only URLs on this domain and its subdomains (e.g. a pay-level domain)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l format -d 'Output of SELECT and ASK: W3C SPARQL results JSON, XML, CSV or TSV, or an aligned table (the default); of CONSTRUCT and DESCRIBE: N-Triples (the default) or Turtle' -r -f -a "table\t'Aligned columns for people'
json\t'SPARQL 1.1 Query Results JSON'
xml\t'SPARQL Query Results XML'
csv\t'SPARQL 1.1 Query Results CSV'
tsv\t'SPARQL 1.1 Query Results TSV'
nt\t'N-Triples (CONSTRUCT, DESCRIBE)'
ttl\t'Turtle (CONSTRUCT, DESCRIBE)'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l default-graph -d 'The default graph: the union of all documents\' graphs, or empty (then patterns name their graph with GRAPH). A query\'s own FROM/FROM NAMED clauses win' -r -f -a "union\t'The union of every document\'s graph'
empty\t'The empty graph'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l max-memory -d 'Memory the query may hold, its dataset and its evaluation together (an ORDER BY, GROUP BY or DISTINCT holds every solution it orders or groups): past it the query is stopped with an error (exit status 2). Sizes take units (512MiB, 8GiB)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l max-results -d 'Most results (solutions, or triples of CONSTRUCT and DESCRIBE) written: past it the query stops with an error (exit status 2) after writing that many. No limit by default' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -l worker -d 'Run as the process that evaluates a query for another ldwarc (`ldwarc sparql` and `ldwarc serve` start it, watch its memory and time, and read its answer): the query on standard input, exit status 2 for a bad query, 3 past --max-results, 4 on a failure'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand sparql" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l base -d 'Base IRI to resolve relative references against (default: each file\'s file:// URL; a page\'s <base href> still applies)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l media-type -d 'The documents\' media type, as a server would send it (default: from the file name extension); the content is sniffed as well, as replay does' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l format -d 'Output syntax (default: nt, or nq when the graph has named graphs)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l microdata-registry -d 'A Microdata vocabulary registry (JSON, as the W3C Microdata to RDF note defines it) to use beside the one shipped with ldwarc' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l document -d 'A local copy of the document published at URL: a JSON-LD context, or an RDFa vocabulary (a page whose @vocab names it gets the sub-property, sub-class and equivalence statements it entails). Repeatable; nothing is fetched' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l rdfa-graph -d 'The RDFa graph of pages: output (the data), processor (the RDFa processor graph: an rdfa:Error or rdfa:Warning per problem, and no data) or both' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l syntax -d 'Keep only these embedded syntaxes of pages (comma-separated)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -l report -d 'Print on stderr, per page, how many statements each embedded syntax gave (RDFa, Microdata, JSON-LD blocks, Turtle-family blocks)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand parse" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand demo" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand demo" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand demo" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand demo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l prefix -d 'Only URLs starting with this prefix' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l host -d 'Only URLs on this host' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l domain -d 'Only URLs on this domain and its subdomains (e.g. a pay-level domain)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l format -d 'Output: text tables, one JSON object, or one CSV table (see --table)' -r -f -a "text\t''
json\t''
csv\t''"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l table -d 'The table --format csv prints' -r -f -a "urls\t''
plds\t''
snapshots\t''"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l plot -d 'Also write the figures (SVG) into DIR: age CDF, lifetime CDF with the fitted model, change-rate histogram per PLD, changes per snapshot' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l truth -d 'Known change rates per day (a JSON object URL → rate, or CSV lines URL,rate): also print the median relative error of each estimator against them (- reads stdin)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l min-observations -d 'URLs with fewer observations are not compared with --truth' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l snapshot-gap -d 'The longest pause between two captures of one snapshot (a crawl in the crawl log is never split)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l fit -d 'The Weibull of mean change times: fitted to every document\'s own visits (hierarchical, with 95% intervals), or as the paper does to pooled Last-Modified lifetimes with the span correction (pooled-lifetimes: maximum likelihood; pooled-lifetimes-cdf: the paper\'s CDF least squares, eq. 16). `ml` and `cdf` are the old names of the two pooled fits' -r -f -a "hierarchical\t''
pooled-lifetimes\t''
pooled-lifetimes-cdf\t''"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l histories -d 'Change histories, one JSON object per line: {"url", "start", "end", "changes": [...]}, instants as RFC 3339 or epoch seconds (see docs/scheduling.md); `-` reads stdin' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l synthetic -d 'Generate histories instead: poisson, bursty, periodic or mixture' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l documents -d 'Synthetic documents' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l seed -d 'Seed of the synthetic model' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l weibull -d 'Distribution of synthetic mean change times: SHAPE,SCALE (default 0.8,100d)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l strategies -d 'Strategies, comma-separated: fix, dyn, window, state-1, state-2, week, gold, freshness, dyldo' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l years -d 'Years simulated (365 days each): synthetic histories are this long, given histories are cut to it. Default: 3 for synthetic models, whole histories otherwise' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l cycle -d 'The scheduler\'s cycle: downloads happen on this grid' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l min-interval -d 'Shortest re-crawl interval' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l max-interval -d 'Longest re-crawl interval' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l initial-interval -d 'Interval of a URL with no history' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l week -d 'The fixed interval of the `week` strategy' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l markov-prior -d 'state-1/state-2: pseudo-count added to each Markov count before the change probability is read (0: the paper\'s bare counts)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l budget -d '`freshness`: downloads per cycle for the whole collection (default: as many in all as `gold` makes)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l every -d 'Rows of the over-time tables, every N months' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l write-histories -d 'Also write the histories simulated (e.g. a synthetic model\'s) to FILE as JSON lines' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l over-time -d 'With --format json, also one object per strategy and month (cumulative, all documents)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l seeds -d 'Also add the kernel URLs in FILE (one per line, # starts a comment; - reads stdin)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l strategy -d 'Re-crawl strategy: fix, dyn, window, state-1, state-2, week, freshness, dyldo (the week (--initial-interval) divided by 1, 2, 4, 8 or 16; --min/--max-interval do not apply)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l budget -d 'Downloads per cycle at most; the freshness strategy shares this budget out' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l hops -d 'The segment: documents within N links of the kernel (0: the kernel only)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l every -d 'Time between cycles (30m, 1h, 1d)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l min-interval -d 'Shortest re-crawl interval' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-interval -d 'Longest re-crawl interval' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l initial-interval -d 'Interval of a URL not seen before, and the week strategy\'s' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l truth -d 'Ground truth: per URL its change times (the simulate --histories format); prints recall and precision after each cycle; - reads stdin' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l delay -d 'Minimum time between two requests to one pay-level domain [default: 2s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l concurrency -d 'Requests in flight at most, one per pay-level domain [default: 64]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l timeout -d 'Time allowed for a whole fetch; connecting has the same limit unless --connect-timeout is given [default: 120s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l connect-timeout -d 'Time allowed to connect (TCP and TLS handshake) [default: --timeout]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-crawl-delay -d 'Largest robots.txt Crawl-delay honoured [default: 60s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-retry-after -d 'Longest wait honoured from a 429/503 answer\'s Retry-After [default: 1h]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l user-agent -d 'User-Agent, with a contact URL or address for real crawls' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l accept -d 'Accept header [default: the six RDF syntaxes, q-weighted]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l accept-encoding -d 'Accept-Encoding header; payloads are archived as received [default: gzip, deflate, br]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l follow-predicate -d 'Follow only objects of this predicate (repeatable; default: every IRI is a link)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l proxy -d 'HTTP(S) proxy for all requests (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l resolve -d 'Connect to ADDR (IP or IP:PORT) for HOST; HOST may be *.domain (repeatable)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l ca-file -d 'Also trust the CA certificates in this PEM file for HTTPS (repeatable; in ldwarc.toml relative to the archive root)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l tls-roots -d 'Base set of trusted CAs: the bundled Mozilla roots (plus SSL_CERT_FILE and SSL_CERT_DIR when set) or the operating system\'s store [default: bundled]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-body -d 'Longest body archived; longer bodies are cut and marked WARC-Truncated [default: 50MB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-parse -d 'Most payload bytes parsed for links [default: 16MiB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-decoded -d 'Most bytes a compressed payload may inflate to for link extraction [default: 64MiB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-redirects -d 'Redirects followed from one URL [default: 5]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-file-bytes -d 'Close a WARC file when it reaches this size [default: 1GB]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l gzip-level -d 'gzip level of WARC records, 0 (fastest) to 9 (smallest) [default: 6]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l operator -d 'Who runs the crawl: the operator field of every WARC file\'s warcinfo record' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l state -d 'Keep the frontier, crawl log and URL state (and a monitor\'s schedule, observations and cycles) in this shared PostgreSQL database (postgres://user:password@host:port/db) instead of under the root: several nodes crawl together, each holding leases on the pay-level domains it fetches; monitors on several nodes share one schedule and take turns, one cycle at a time' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l node -d 'This node\'s name, in every WARC file name and on its leases [default: the host name]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l max-plds -d 'With --state: pay-level domain leases held at most at once; a node holds no more than its fair share (domains with queued URLs / live nodes) [default: --concurrency]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l lease-ttl -d 'With --state: how long a lease lasts unless renewed; a dead node\'s domains are taken over after this [default: 30s]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l now -d 'Fix the cycle\'s clock (RFC 3339, UTC), for tests and replays' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l once -d 'Run one cycle and exit (for cron); otherwise run a cycle every --every'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l no-conditional -d 'Do not send If-None-Match / If-Modified-Since from earlier captures'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -l no-triples -d 'Leave the versioned triple index as it is after each cycle (by default each cycle brings it up to date with the captures it made)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand monitor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l bind -d 'Address to listen on (port 0 picks a free port; the address is printed). Binding to a non-loopback address needs --token, or --public' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l token -d 'Secret every request must carry: `Authorization: Bearer <token>`, or `?token=<token>` once (a cookie then keeps it). Required for non-loopback binds' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l request-timeout -d 'Time a request may compute before it is answered 503' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l head-timeout -d 'Time a connection may take to send a request head (from its accept or from the last answer): slower or idle clients are disconnected' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l max-cdx-rows -d 'Most captures a CDX query may hold in memory before it is refused (403): one URL\'s captures, or the whole answer for sort=reverse, closest= and limit=-N (answers in index order stream, whatever their size)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l memory-budget -d 'Memory the requests in flight may hold together (rows of CDX queries answered in another order than the index\'s, pieces of answers waiting for their clients, and a quarter for each of the at most 2 SPARQL queries evaluated at once, stopped past it); a request that would need more is answered 503 with Retry-After. The default, 320MiB, keeps a server under a burst of queries within half of a 1 GB machine; at least 2MiB' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l zipnum -d 'Answer CDX queries from this ZipNum index (a directory holding index.idx, or the .idx file; `ldwarc cdx --zipnum DIR` writes one) instead of the capture index, with pywb\'s pagination: page, pageSize, showNumPages, showPagedIndex. Replay still uses the capture index' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l cdx-block-captures -d 'Without --zipnum, CDX pages (page, pageSize, showNumPages) are cut from the capture index in blocks of this many captures, as a ZipNum index is; a page is pageSize blocks' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -l public -d 'Public read-only mode: serve the Wayback, CDX and Memento routes and the pages to anyone, on any address, without a token; every other endpoint is refused'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -f -a "currency" -d 'The re-indexing period that keeps an index (α, β)-current, or α for a given period'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -f -a "crawl-time" -d 'Estimate how long the next crawl takes: politeness simulation, the paper\'s first-fit bin packing, a lower bound'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency crawl-time help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l alpha -d 'Wanted probability that a random page is β-current, in (0, 1]; prints the period T' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l beta -d 'Grace period β: changes younger than this are forgiven' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l weibull -d 'Weibull distribution of the pages\' mean change times: SHAPE,SCALE (scale a duration)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l fit -d 'With --from-archive: which Weibull fit (as for ldwarc stats)' -r -f -a "hierarchical\t''
pooled-lifetimes\t''
pooled-lifetimes-cdf\t''"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l period -d 'Re-indexing period T; prints the α it gives (instead of --alpha)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l documents -d 'Number of documents in the index (for the bandwidth)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l mean-size -d 'Mean document size: bytes, or with a unit (12KB = 12,000 bytes, 12KiB = 12,288)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l from-archive -d 'Fit the Weibull to the archive at --root, take the documents and their mean size from it, and add the bandwidth of the monitor\'s adaptive schedules'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l plds -d 'Read the workload from FILE instead of the crawl log: one JSON object per line, {"pld", "delay", "fetch_times": [...]} or {"pld", "delay", "urls", "fetch_time"}, optionally "round" (see docs/scheduling.md); `-` reads stdin' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l crawl -d 'The logged crawl whose URLs make the workload (default: the last finished one)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l connections -d 'Connections (default: the crawl\'s concurrency, else 64)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l delay -d 'Per-PLD delay (default: the crawl\'s, else 2s; a --plds line\'s own delay wins)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l nodes -d 'Estimate the cycle on N crawler nodes sharing one frontier, --connections each (domains leased to free nodes, and partitioned by rendezvous hashing)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l cycle -d 'Print how many nodes (of --connections each) crawl the workload within DURATION, or why no number of nodes can' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l max-nodes -d 'The largest cluster --cycle considers' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l format -d 'Output format: text for people, or json for programs (one JSON object per line where the output is a list)' -r -f -a "text\t'Lines for people'
json\t'JSON: one object per line for lists, else one object'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l backtest -d 'For every finished crawl: estimate from the fetch times of earlier crawls, and compare with the time it took'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -l json -d 'Deprecated: use --format json'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from crawl-time" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "currency" -d 'The re-indexing period that keeps an index (α, β)-current, or α for a given period'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "crawl-time" -d 'Estimate how long the next crawl takes: politeness simulation, the paper\'s first-fit bin packing, a lower bound'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l root -d 'Archive root directory (holds warc/, index/, state/). Repeat to answer from several roots as one archive: captures merged by URL and time, a capture held by two roots counted once (the first root given keeps it)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l wacz -d 'Write a WACZ 1.1.1 package here (WARC files, CDXJ index, pages, datapackage)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l prefix -d 'Only URLs starting with this prefix' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l host -d 'Only URLs on this host' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l domain -d 'Only URLs on this domain and its subdomains (e.g. a pay-level domain)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l url -d 'Only captures of this URL (or a pattern as `ldwarc query` takes it: a prefix ending in `*`, or `*.domain`)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l from -d 'Only captures at or after this timestamp (1-14 digits, or ISO 8601: from the first second of its period)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l to -d 'Only captures at or before this timestamp (1-14 digits, or ISO 8601: to the last second of its period)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand import" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand import" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand import" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand import" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -l out -d 'Output directory' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -l log-format -d 'Log format on stderr: text, or JSON lines with UTC timestamps (for daemons)' -r -f -a "text\t'One `ldwarc: LEVEL: message` line per event'
json\t'One JSON object per event: timestamp (UTC), level, target, message and fields'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -s v -l verbose -d 'Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -s q -l quiet -d 'Log only errors, and no progress lines (for `check`: also print only the summary line)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "check" -d 'Validate WARC/ARC files: framing, gzip members, mandatory fields, digests, revisits'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "ls" -d 'List records: offset, length, type, date, status, mime, payload digest, target URI'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "extract" -d 'Write one record (or its headers, or its payload) as warcio extract does'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "index" -d 'Bring the capture index up to date with the WARC tree (incremental), or rebuild or verify it'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "cdx" -d 'Export the index as byte-sorted CDXJ (as cdxj-indexer writes) or CDX-11, streamed'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "query" -d 'Find captures by URL and time, with the pywb CDX server\'s semantics'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "crawl" -d 'Crawl Linked Data politely into the archive: content negotiation, rounds, robots.txt'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "replay" -d 'The RDF graph of a URL as it was at a date (revisits and redirects resolved)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "history" -d 'Every capture of a URL with status, digest, and whether its RDF graph changed'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "snapshot" -d 'The dataset as of a date: one named graph per document, as N-Quads or TriG, streamed'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "describe" -d 'The archive as VoID + DCAT 3: a catalogue of its datasets, one per domain and crawl day'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "diff" -d 'Statements added and removed between two captures, two dates, or two RDF files'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "when" -d 'The intervals during which the statements matching a triple pattern held, per document'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "sparql" -d 'A SPARQL 1.1 query over the dataset as of a date: each document a named graph'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "parse" -d 'Parse RDF files or HTML/XHTML pages (RDFa, Microdata, JSON-LD) to any RDF syntax'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "demo" -d 'A self-contained tour: serve a sample Linked Data web on loopback, crawl it three times, replay'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "stats" -d 'Change statistics of the archive: per-URL change rates, ages, lifetimes, Weibull fit, plots'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "simulate" -d 'Replay change histories against re-crawl strategies: recall, precision, downloads'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "monitor" -d 'The observatory loop: re-crawl a kernel and its segment as the strategy says, detect changes, adapt'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "serve" -d 'Serve the archive: CDX API, Wayback-style replay, Memento TimeGate/TimeMaps, pages'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "recover" -d 'Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "plan" -d 'Plan re-crawling from the change models: (α, β)-currency periods and bandwidth'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "export" -d 'Package the archive (or a selection) as a WACZ file: WARCs, CDXJ index, pages, datapackage'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "import" -d 'Bring a WACZ package\'s WARC files into the archive (hashes checked) and index them'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "gen-docs" -d 'Write man pages and shell completions generated from this command line definition'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls extract index cdx query crawl replay history snapshot describe diff when sparql parse demo stats simulate monitor serve recover plan export import gen-docs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "currency" -d 'The re-indexing period that keeps an index (α, β)-current, or α for a given period'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "crawl-time" -d 'Estimate how long the next crawl takes: politeness simulation, the paper\'s first-fit bin packing, a lower bound'
