#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Writes kvmtop's bash completion to stdout, generated at build time so that
# nothing in it is copied by hand:
#  - the options (and which take a file or a directory) from the built
#    kvmtop's --help;
#  - the choices of every option that has them (-o's formats, --source's
#    sources, --ip-kind, --metrics-latency) from the error line the built
#    kvmtop prints for an unknown value: "unknown source 'x' (trace,
#    debugfs or stats)".  Each probe also gives --demo with -r, which
#    cannot go together: kvmtop stops at the command line, never traces;
#  - the field and column names --sort and --fields take from the built
#    kvmtop's --fields help (the field table's, then each pane's).
#
# usage: bash-completion.sh KVMTOP > kvmtop
set -eu
kvmtop=$1
probe=kvmtop-completion-probe

die() {
	echo "bash-completion.sh: $*" >&2
	exit 1
}

help=$("$kvmtop" --help) || die "$kvmtop --help failed"
version=$("$kvmtop" --version) || die "$kvmtop --version failed"

# One line per option of --help: "SHORT LONG ARG DESCRIPTION..." (- for none).
# An option's line is "  -b, --batch ARG  text" or "      --name ARG  text".
table=$(printf '%s\n' "$help" | awk '
	/^  (-[A-Za-z], |    )--[a-z]/ {
		s = $0; sub(/^ +/, "", s)
		i = index(s, "  "); left = i ? substr(s, 1, i - 1) : s
		desc = i ? substr(s, i) : ""; sub(/^ +/, "", desc)
		n = split(left, w, " "); short = "-"; k = 1
		if (w[1] ~ /^-[A-Za-z],$/) { short = substr(w[1], 1, 2); k = 2 }
		print short, w[k], (n > k ? w[k + 1] : "-"), desc
	}')
[ "$(printf '%s\n' "$table" | wc -l)" -ge 10 ] || die "$kvmtop --help lists no options"

# The field and column names: --fields help's "  KIND: name name ..." lines
# (not its last part, what each field is).
fields=$("$kvmtop" --fields help | sed -n '/^What each field is/q; s/^  [^:]*: //p' | tr ' ' '\n' | sort -u | tr '\n' ' ' |
	sed 's/ $//') || die "$kvmtop --fields help failed"
[ "$(printf '%s\n' $fields | wc -l)" -ge 10 ] || die "$kvmtop --fields help lists no fields"

options=""
value_cases=""
printf '%s\n' "$table" | {
	while read -r short long arg desc; do
		case $desc in internal*) continue ;; esac	# --demo-guest: kvmtop's own
		names=$long
		[ "$short" = - ] || names="$short $long"
		options="$options $names"
		[ "$arg" = - ] && continue
		pat=$(echo "$names" | tr ' ' '|')
		# the choices the error line of an unknown value lists: "a, b or c"
		choices=$(timeout 10 "$kvmtop" "$long" "$probe" --demo -r "$probe" 2>&1 >/dev/null |
			sed -n "s/.*: unknown [^']*'$probe' (\([^)]*\)).*/\1/p" | sed 's/, / /g; s/ or / /') || true
		case $long:$arg in
		--fields:*)	what='_kvmtop_list "$_kvmtop_fields"' ;;
		--sort:*)	what='_kvmtop_words "$_kvmtop_fields"' ;;
		*)
			if [ -n "$choices" ]; then
				what="_kvmtop_words '$choices'"
			else
				case $arg in
				*FILE*)	what='_kvmtop_files' ;;
				*DIR*)	what='_kvmtop_files -d' ;;
				*)	what='' ;;	# a number, an address: nothing to offer
				esac
			fi
			;;
		esac
		value_cases="$value_cases	$pat) ${what:+$what; }return ;;
"
	done
	options=${options# }

	cat <<EOF
# bash completion for kvmtop(1)                            -*- shell-script -*-
# Generated at build time by contrib/bash-completion.sh from $version's
# --help, --fields help and error lines: edit kvmtop, not this file.

_kvmtop_options='$options'
_kvmtop_fields='$fields'

_kvmtop_words()
{
	COMPREPLY=(\$(compgen -W "\$1" -- "\$cur"))
}

# a comma-separated list of fields: the ones before the last comma stay
_kvmtop_list()
{
	local done=
	[[ \$cur == *,* ]] && done=\${cur%,*},
	COMPREPLY=(\$(compgen -P "\$done" -W "\$1" -- "\${cur##*,}"))
	compopt -o nospace 2>/dev/null
}

_kvmtop_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir "\$@"
	elif [[ \${1-} == -d ]]; then
		COMPREPLY=(\$(compgen -d -- "\$cur"))
	else
		COMPREPLY=(\$(compgen -f -- "\$cur"))
	fi
}

_kvmtop()
{
	local cur=\${COMP_WORDS[COMP_CWORD]} prev=
	((COMP_CWORD > 0)) && prev=\${COMP_WORDS[COMP_CWORD - 1]}
	# --name=value: bash splits the word at '=' (COMP_WORDBREAKS)
	if [[ \$cur == = ]]; then
		cur=
	elif [[ \$prev == = ]] && ((COMP_CWORD > 1)); then
		prev=\${COMP_WORDS[COMP_CWORD - 2]}
	fi
	COMPREPLY=()
	case \$prev in
$value_cases	esac
	# kvmtop takes no operands: only options
	_kvmtop_words "\$_kvmtop_options"
}
complete -F _kvmtop kvmtop
EOF
}
