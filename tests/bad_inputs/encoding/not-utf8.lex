statute "Tiny Act 1"
  official "tiny.txt"
# café
