# fish completion for allox-cli.
#
# Every candidate comes from the command table through the hidden
# `allox-cli __complete line -- WORDS... CURRENT`, which prints one
# "CANDIDATE<TAB>description" per line (fish's own format) and then a
# directive: ":files" or ":dirs" (complete local paths here) or ":none".
# Sandbox and checkpoint ids come from a short-lived cache in
# $ALLOX_HOME/cache/; completing never starts the engine.

function __allox_cli_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l directive :none
    for line in (command $tokens[1] __complete line -- $tokens[2..-1] "$current" 2>/dev/null)
        switch $line
            case ':*'
                set directive $line
            case '*'
                echo $line
        end
    end
    switch $directive
        case :files
            __fish_complete_path "$current"
        case :dirs
            __fish_complete_directories "$current" ''
    end
end

complete -c allox-cli -f -a '(__allox_cli_complete)'
