# bash completion for tracelloc
_tracelloc()
{
	local cur prev opts
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-p|--pid)
		COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur"))
		return ;;
	--comm)
		COMPREPLY=($(compgen -W "$(ps -e -o comm= 2>/dev/null | sort -u)" -- "$cur"))
		return ;;
	-s|--sort)
		COMPREPLY=($(compgen -W "live allocs count growth peak short-lived" -- "$cur"))
		return ;;
	-m|--flamegraph-metric)
		COMPREPLY=($(compgen -W "live live-count allocated count peak leaked since-mark" -- "$cur"))
		return ;;
	--unwind)
		COMPREPLY=($(compgen -W "auto dwarf fp" -- "$cur"))
		return ;;
	-f|--flamegraph|--svg|--pprof|--suppressions|--timeline)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--snapshot-every)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		opts=$(tracelloc --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -c -- "$cur"))
}
complete -F _tracelloc tracelloc
