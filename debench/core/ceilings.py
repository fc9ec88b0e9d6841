"""Ceilings (docs/errors.md, "Ceilings"): the largest counts and files debench accepts. A count
past them would hold the machine (memory, hours) for no gain; each is refused with one line before
anything runs. A module of constants only, so that the CLI reads them without importing pydantic."""

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

# -- files a user points debench at (debench.core.user_files) ----------------------------------
MAX_TASK_FILE_BYTES = 1_000_000
"""A task file, and each file it includes (debench's own are 1-4 KB)."""
MAX_TEXT_FILE_BYTES = 10_000_000
"""A prompt file, a judging manual, a topics file, a reference ranking, one debate's file of a
published data set (a PanelBench YAML file, a DebateBench transcript)."""
MAX_RESULTS_BYTES = 50_000_000
"""A results file, an arena run's configuration (a full run's results file is about 20 KB)."""
MAX_TABLE_BYTES = 4_000_000_000
"""A data set's table (a generic task's JSONL, CSV or Parquet file; a published CSV, workbook or
archive), a samples log, a predictions file, a judgments file."""
MAX_LINE_BYTES = 64_000_000
"""One line of a JSONL file or a log (one document's record with its prompt)."""
MAX_NESTING = 200
"""Levels of lists and mappings in one JSON value or YAML file: the bound of the JSON parser
pydantic uses (jiter), kept for YAML too."""
