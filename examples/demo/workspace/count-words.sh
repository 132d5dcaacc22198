#!/usr/bin/env sh
# Prints how many words each text file in this folder holds.
for file in *.txt; do
  printf '%s: %s words\n' "$file" "$(wc -w < "$file" | tr -d ' ')"
done
