"""Hand-written baselines and a scenario generator for benchmarking lextrace.

Everything in this package is written independently from the statute text
(`N.J.S.A. 34:1B-343`) and its interpretation register, not from the project's encoding or
evaluator, so that it can serve both as a speed baseline and as a differential oracle.
"""
