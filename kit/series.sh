# The `series` file and how one entry becomes one commit.  Sourced, not run.
#
# `series` is in quilt format: one patch path a line, `#` comments.  A line
# "#+ PATH..." just above a patch names the new files that enter the tree in
# that patch's commit, copied from the repository as they are.
#
# The top-level MAINTAINERS holds the entries the series adds or changes,
# whole, one paragraph each.  Each commit gets each of them, in sorted
# position in the kernel's MAINTAINERS (in place of the kernel's version),
# with the F: lines of the files that exist by then, so that no commit adds
# a file MAINTAINERS does not know (checkpatch asks).

# path_exists PATTERN: some file matches the F: line's PATTERN.
path_exists()
{
	compgen -G "$1" >/dev/null
}

# maintainers_split FILE DIR: write FILE's entries to DIR/1, DIR/2...
maintainers_split()
{
	awk -v dir="$2" -v RS= '{ print > (dir "/" NR) }' "$1"
}

# series_entries FILE: print "PATCH [NEWFILE...]" for each entry.
series_entries()
{
	awk '/^#\+/ { sub(/^#\+[ \t]*/, ""); files = $0; next }
	     /^#/ || NF == 0 { next }
	     { print $1 (files == "" ? "" : " " files); files = "" }' "$1"
}

# series_key PREV PATCH [NEWFILE...]: a hash of everything that makes the
# entry's commit, chained to the key of the entry before it.
series_key()
{
	local prev=$1 f
	shift
	{
		echo "$prev"
		for f in "$@" MAINTAINERS; do
			echo "== $f"
			cat "$TOP/$f" 2>/dev/null || true
		done
	} | sha1sum | cut -d' ' -f1
}

# maintainers_entry ENTRY EXISTS...: ENTRY without the F: lines of files
# that do not exist yet; the command EXISTS PATH tells.  Prints nothing if
# no F: line is left.
maintainers_entry()
{
	local entry=$1 line path out= files=0
	shift
	while IFS= read -r line; do
		case $line in
		F:*)	path=$(echo "${line#F:}" | sed 's/^[[:space:]]*//; s,/$,,')
			"$@" "$path" || continue
			files=$((files + 1)) ;;
		esac
		out="$out$line
"
	done < "$entry"
	[ "$files" -eq 0 ] || printf '%s' "$out"
}

# maintainers_insert ENTRY KERNEL_MAINTAINERS: print the kernel's MAINTAINERS
# with ENTRY in it: in place of the kernel's version of it (the file is not
# sorted throughout), or else in sorted position.
maintainers_insert()
{
	local inplace=
	! grep -qxF "$(head -n 1 "$1")" "$2" || inplace=1
	awk -v entry="$1" -v inplace="$inplace" '
		BEGIN {
			while ((getline line < entry) > 0)
				block = block line "\n"
			split(block, l, "\n")
			name = l[1]
			title = toupper(name)
		}
		skip { if ($0 == "") skip = 0; next }
		$0 == name && prev == "" {
			skip = 1
			if (inplace)
				printf "%s\n", block
			next
		}
		/^Maintainers List/ { list = 1 }
		list && !inplace && !done && prev == "" && $0 ~ /^[A-Z0-9]/ &&
		    toupper($0) > title && $0 != "Maintainers List" {
			printf "%s\n", block
			done = 1
		}
		{ print; prev = $0 }
	' "$2"
}

# series_apply TOP PATCH [NEWFILE...]: in the current directory (a kernel
# git tree), commit PATCH's change plus the new files, with PATCH's author,
# date and message.  The committer is the author, so the commit is the same
# every time it is made.
series_apply()
{
	local top=$1 patch=$2 f tmp
	shift 2
	tmp=$(mktemp -d)
	git mailinfo "$tmp/msg" "$tmp/diff" < "$top/$patch" > "$tmp/info"
	if [ -s "$tmp/diff" ] &&
	   ! git apply --index "$tmp/diff" 2>"$tmp/err"; then
		echo "kit: $patch does not apply:" >&2
		cat "$tmp/err" >&2
		rm -rf "$tmp"
		exit 1
	fi
	for f in "$@"; do
		mkdir -p "$(dirname "$f")"
		cp "$top/$f" "$f"
		git add -f "$f"
	done
	if [ -f "$top/MAINTAINERS" ]; then
		mkdir "$tmp/entries"
		maintainers_split "$top/MAINTAINERS" "$tmp/entries"
		for f in "$tmp"/entries/*; do
			maintainers_entry "$f" path_exists > "$tmp/entry"
			[ -s "$tmp/entry" ] || continue
			maintainers_insert "$tmp/entry" MAINTAINERS > "$tmp/M"
			cat "$tmp/M" > MAINTAINERS
			git add MAINTAINERS
		done
	fi
	{
		sed -n 's/^Subject: //p' "$tmp/info"
		if [ -s "$tmp/msg" ]; then
			echo
			cat "$tmp/msg"
		fi
	} > "$tmp/commit"
	GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$tmp/info") \
	GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$tmp/info") \
	GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$tmp/info") \
	GIT_COMMITTER_NAME=$(sed -n 's/^Author: //p' "$tmp/info") \
	GIT_COMMITTER_EMAIL=$(sed -n 's/^Email: //p' "$tmp/info") \
	GIT_COMMITTER_DATE=$(sed -n 's/^Date: //p' "$tmp/info") \
		git commit -q --allow-empty --cleanup=verbatim -F "$tmp/commit"
	rm -rf "$tmp"
}
