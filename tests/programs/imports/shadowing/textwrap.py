import textwrap

print(textwrap.dedent("  x"))
