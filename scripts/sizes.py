#!/usr/bin/env python3
"""Lines per function and per class in the engine (src/hysim), longest first.

A rough reader of C++: a definition starts at a line whose code ends in '{' and that holds
'(' (functions) or begins with 'class'/'struct' (classes); it ends where its braces balance.
Usage: scripts/sizes.py [--functions N] [--classes N]   (report those over N lines)
"""
import argparse
import pathlib
import re

CONTROL = re.compile(r'^\s*(if|for|while|switch|else|do|try|catch|return|case|namespace)\b|^\s*[\]\[}]|=\s*\[|\)\s*->\s*\w+\s*{|\blambda\b')


def definitions(path):
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        code = line.split('//')[0].rstrip()
        if not code.endswith('{'):
            continue
        kind = None
        if re.match(r'^\s*(template\s*<.*>\s*)?(class|struct)\s+\w+', code) and '(' not in code:
            kind = 'class'
        elif '(' in code and not CONTROL.search(code) and not code.strip().startswith(('[', '{')):
            kind = 'function'
        elif re.match(r'^\s*[\w:<>,\s\*&~]+\)\s*(const)?\s*(override)?\s*{$', code) or re.match(r'^\s*:\s', code):
            kind = 'function'  # the last line of a multi-line signature or initializer list
        if kind is None:
            continue
        depth, j = 0, i
        while j < len(lines):
            text = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '', lines[j].split('//')[0])
            depth += text.count('{') - text.count('}')
            if depth <= 0 and j >= i:
                break
            j += 1
        name = re.sub(r'\s+', ' ', code.strip())[:90]
        out.append((j - i + 1, kind, f'{path}:{i + 1}', name))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--functions', type=int, default=80)
    parser.add_argument('--classes', type=int, default=300)
    parser.add_argument('root', nargs='?', default='src/hysim')
    args = parser.parse_args()
    found = []
    for path in sorted(pathlib.Path(args.root).rglob('*.[hc]pp')):
        found += definitions(path)
    found.sort(reverse=True)
    for kind, limit in (('function', args.functions), ('class', args.classes)):
        over = [d for d in found if d[1] == kind and d[0] > limit]
        print(f'{kind}s over {limit} lines: {len(over)}')
        for length, _, where, name in over:
            print(f'  {length:5d}  {where}  {name}')


if __name__ == '__main__':
    main()
