# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ldwarc_global_optspecs
    string join \n h/help V/version
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

complete -c ldwarc -n "__fish_ldwarc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -s V -l version -d 'Print version'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "check" -d 'Validate WARC/ARC files: framing, gzip members, mandatory fields, digests, revisits'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "ls" -d 'List records: offset, length, type, date, status, mime, payload digest, target URI'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "index" -d 'Bring the capture index up to date with the WARC tree (incremental), or rebuild or verify it'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "cdx" -d 'Export the index as byte-sorted CDXJ (as cdxj-indexer writes) or CDX-11, streamed'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "query" -d 'Find captures by URL and time, with the pywb CDX server\'s semantics'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "crawl" -d 'Crawl Linked Data politely into the archive: content negotiation, rounds, robots.txt'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "recover" -d 'Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "plan" -d 'Plan re-crawling from the change models: (α, β)-currency periods and bandwidth'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "gen-docs" -d 'Write man pages and shell completions generated from this command line definition'
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l json -d 'One JSON object per problem, then one summary object'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -l strict -d 'Count warnings as failures too'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -s q -l quiet -d 'Print only the summary line'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -l json -d 'One JSON object per record'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l threads -d 'Reading threads (default: all cores)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l rebuild -d 'Drop the index and rebuild it from every WARC file, on all cores'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -l verify -d 'Prove the index and the files agree: every record indexed, every revisit resolved'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -l format -d 'Output format' -r -f -a "cdxj\t'`urlkey timestamp {json}` as cdxj-indexer writes it'
cdx11\t'Space-separated CDX with the ` CDX N b a m s k r M S V g` legend'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand cdx" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l match -d 'How the URL selects captures (default: exact, or inferred from `*.host` / `prefix*`)' -r -f -a "exact\t'The URL itself (and, unlike pywb, only captures whose URL matches case-exactly)'
prefix\t'Every URL starting with the query URL'
host\t'Every URL of the host'
domain\t'Every URL of the host and its subdomains'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l from -d 'Earliest timestamp, 1–14 digits (padded down: 2014 = 20140101000000)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l to -d 'Latest timestamp, 1–14 digits (padded up: 2014 = 20141231235959)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l closest -d 'Order by distance to this timestamp (partial timestamps mean the end of their period; on equal distance the earlier capture comes first)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l sort -d 'Result order (closest is implied by --closest)' -r -f -a "ascending\t'Ascending by key and time (the default)'
reverse\t'Descending'
closest\t'By distance to `closest` (the default when `closest` is given)'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l limit -d 'At most N results' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l filter -d '`[!][=|~]field:value` (substring, exact, or regex anchored at the start; `!` negates); repeatable, all must match' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l fields -d 'Fields to print, comma-separated (urlkey,timestamp,url,mime,status,digest,length,offset,filename,redirect)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -l output -d 'Output format' -r -f -a "cdxj\t'`urlkey timestamp {json}`'
json\t'One JSON object per line'
text\t'Space-separated fields (`-` when absent)'"
complete -c ldwarc -n "__fish_ldwarc_using_subcommand query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l hops -d 'Follow links up to this many hops from the seeds [default: 2]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l delay -d 'Minimum seconds between two requests to one pay-level domain [default: 2]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-crawl-delay -d 'Largest robots.txt Crawl-delay honoured, in seconds [default: 60]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l concurrency -d 'Requests in flight at most, one per pay-level domain [default: 64]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l timeout -d 'Seconds allowed for a whole fetch; connecting has the same limit [default: 120]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l max-body -d 'Longest body archived; longer bodies are cut and marked WARC-Truncated [default: 50000000]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l user-agent -d 'User-Agent, with a contact URL or address for real crawls' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l accept -d 'Accept header [default: the six RDF syntaxes, q-weighted]' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l follow-predicate -d 'Follow only objects of this predicate (repeatable; default: every IRI is a link)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l proxy -d 'HTTP(S) proxy for all requests (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l resolve -d 'Connect to ADDR (IP or IP:PORT) for HOST; HOST may be *.domain (repeatable)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l resume -d 'Continue the last interrupted crawl where it stopped'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l no-conditional -d 'Do not send If-None-Match / If-Modified-Since from earlier captures'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -l json -d 'Print the summary as one JSON object on stdout'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand crawl" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -s h -l help -d 'Print help'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency help" -s h -l help -d 'Print help'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency help" -f -a "currency" -d 'The re-indexing period that keeps an index (α, β)-current, or α for a given period'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and not __fish_seen_subcommand_from currency help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l alpha -d 'Wanted probability that a random page is β-current, in (0, 1]; prints the period T' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l beta -d 'Grace period β: changes younger than this are forgiven' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l weibull -d 'Weibull distribution of the pages\' mean change times: SHAPE,SCALE (scale a duration)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l period -d 'Re-indexing period T; prints the α it gives (instead of --alpha)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l documents -d 'Number of documents in the index (for the bandwidth)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l mean-size -d 'Mean document size: bytes, or with a unit (12KB = 12,000 bytes, 12KiB = 12,288)' -r
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -l json -d 'Print one JSON object (times in days) instead of text'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from currency" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "currency" -d 'The re-indexing period that keeps an index (α, β)-current, or α for a given period'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -l out -d 'Output directory' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -s h -l help -d 'Print help'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "check" -d 'Validate WARC/ARC files: framing, gzip members, mandatory fields, digests, revisits'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "ls" -d 'List records: offset, length, type, date, status, mime, payload digest, target URI'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "index" -d 'Bring the capture index up to date with the WARC tree (incremental), or rebuild or verify it'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "cdx" -d 'Export the index as byte-sorted CDXJ (as cdxj-indexer writes) or CDX-11, streamed'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "query" -d 'Find captures by URL and time, with the pywb CDX server\'s semantics'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "crawl" -d 'Crawl Linked Data politely into the archive: content negotiation, rounds, robots.txt'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "recover" -d 'Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "plan" -d 'Plan re-crawling from the change models: (α, β)-currency periods and bandwidth'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "gen-docs" -d 'Write man pages and shell completions generated from this command line definition'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls index cdx query crawl recover plan gen-docs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "currency" -d 'The re-indexing period that keeps an index (α, β)-current, or α for a given period'
