"""Ceilings (docs/errors.md, "Ceilings"): the largest counts debench accepts. A count past them
would hold the machine (memory, hours) for no gain; each is refused with one line before anything
runs. A module of constants only, so that the CLI reads them without importing pydantic."""

MAX_CONCURRENCY = 4096
MAX_BOOTSTRAP = 100_000
MAX_PERMUTATIONS = 1_000_000
MAX_REPEATS = 1000
MAX_ROUNDS = 100
MAX_PER_TOPIC = 1000
MAX_SPEECH_TOKENS = 1_000_000
MAX_WORDS = 100_000
MAX_POLL_SECONDS = 3600.0
MAX_BATCH_HOURS = 24.0 * 30
