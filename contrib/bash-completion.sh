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
#  - the field names from the field table's rows, src/model/model_fields.c.
#    TODO: once kvmtop has `--fields help` (it lists the field table), take
#    the names from it instead of reading the C source.
#
# usage: bash-completion.sh KVMTOP MODEL_FIELDS_C > kvmtop
set -eu
kvmtop=$1
fields_c=$2
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

# The field names: a row is NAME("field", ...) of a macro whose #define puts
# n, or "prefix" n, second in its braces, or { MR_..., "field", ... }.  A row
# of any other shape stops the build rather than drop a field unseen.
fields=$(awk '
	/^#define [A-Z_]+\(n,/ {
		m = $2; sub(/\(.*/, "", m)
		s = $0; sub(/^[^{]*\{ *MR_[A-Z_]+, */, "", s)
		if (s ~ /^n,/) pre[m] = ""
		else if (s ~ /^"[a-z_]*" n,/) { p = s; sub(/^"/, "", p); sub(/".*/, "", p); pre[m] = p }
	}
	/^const struct model_field model_fields\[\] = \{/ { t = 1; next }
	t && /^\};/ { t = 0 }
	t {
		if ($0 ~ /^[ \t]*(\/\*.*\*\/)?[ \t]*$/) next
		if (match($0, /^[ \t]*\{ *MR_[A-Z_]+, *"[a-z0-9_]+"/)) {
			s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s); print s; next
		}
		if (match($0, /^[ \t]*[A-Z_]+\("[a-z0-9_]+"/)) {
			s = substr($0, RSTART, RLENGTH); sub(/^[ \t]*/, "", s)
			m = s; sub(/\(.*/, "", m); sub(/^[^"]*"/, "", s); sub(/"$/, "", s)
			if (m in pre) { print pre[m] s; next }
		}
		print "bash-completion.sh: a row of the field table not understood: " $0 > "/dev/stderr"
		bad = 1
	}
	END { exit bad }' "$fields_c" | tr '\n' ' ' | sed 's/ $//') || die "cannot read the field table of $fields_c"
[ "$(printf '%s\n' $fields | wc -l)" -ge 10 ] || die "no field names in $fields_c"

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
# --help and error lines and from src/model/model_fields.c: edit those, not
# this file.

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
	--fields) _kvmtop_list "\$_kvmtop_fields"; return ;;
$value_cases	esac
	# kvmtop takes no operands: only options
	_kvmtop_words "\$_kvmtop_options"
}
complete -F _kvmtop kvmtop
EOF
}
