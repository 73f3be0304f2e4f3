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
complete -c ldwarc -n "__fish_ldwarc_needs_command" -f -a "recover" -d 'Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail'
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
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -l root -d 'Archive root directory (holds warc/, index/, state/)' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand recover" -s h -l help -d 'Print help'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -l out -d 'Output directory' -r -F
complete -c ldwarc -n "__fish_ldwarc_using_subcommand gen-docs" -s h -l help -d 'Print help'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls recover gen-docs help" -f -a "check" -d 'Validate WARC/ARC files: framing, gzip members, mandatory fields, digests, revisits'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls recover gen-docs help" -f -a "ls" -d 'List records: offset, length, type, date, status, mime, payload digest, target URI'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls recover gen-docs help" -f -a "recover" -d 'Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls recover gen-docs help" -f -a "gen-docs" -d 'Write man pages and shell completions generated from this command line definition'
complete -c ldwarc -n "__fish_ldwarc_using_subcommand help; and not __fish_seen_subcommand_from check ls recover gen-docs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
