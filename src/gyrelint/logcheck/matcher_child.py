"""The child process that runs user regexes on log lines; see :mod:`gyrelint.logcheck.usermatch`.

Standard library only and self-contained: it is run as ``python -I -S -c <this file's text>``, so it
imports nothing from the working folder or from gyrelint. Protocol on stdin: one JSON line with the
rules ``[[pattern, flags, group, number], ...]``, then batches ``<n bytes>\\n<lines joined by \\n>``. On stdout,
per batch: ``r<rule>\\n`` before each rule runs (so a parent that kills it knows which rule hung),
then ``d<n bytes>\\n`` and the matches, one ``<line> <rule> <value>`` per line. A line counts once per
group (the first rule of a group that yields a number wins; a rule with ``number`` false
yields 1 for any match). SIGALRM ends a batch that runs far past
the parent's budget even if the parent is gone.
"""

import json
import re
import signal
import sys


def main():
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    specs = json.loads(inp.readline())
    rules = [(re.compile(p, f), g, number) for p, f, g, number in specs]
    alarm = getattr(signal, "alarm", None)
    while True:
        head = inp.readline()
        if not head:
            return
        size, _, seconds = head.partition(b" ")
        payload = inp.read(int(size))
        texts = payload.decode("utf-8", "replace").split("\n")
        if alarm is not None:
            alarm(max(1, int(float(seconds or 60) * 4) + 5))
        taken = {}
        found = []
        for ri, (rx, group, number) in enumerate(rules):
            out.write(b"r%d\n" % ri)
            out.flush()
            done = taken.setdefault(group, set())
            search, index = rx.search, rx.groupindex
            for i, text in enumerate(texts):
                if i in done:
                    continue
                m = search(text)
                if m is None:
                    continue
                if rx.groups == 0 or not number:
                    value = 1.0
                else:
                    raw = (m.group("n") if "n" in index else None) or \
                        (m.group("value") if "value" in index else None) or m.group(1)
                    try:
                        value = float(raw)
                    except (TypeError, ValueError):
                        continue
                done.add(i)
                found.append(f"{i} {ri} {value!r}")
        if alarm is not None:
            alarm(0)
        body = "\n".join(found).encode()
        out.write(b"d%d\n" % len(body) + body)
        out.flush()


if __name__ == "__main__":
    main()
