"""Loads every CSV of one or more WidgetSim report folders with pandas and DuckDB, as an
analyst would (defaults, no options), and checks each column's inferred type against
the folder's schema.json. Prints one line per file; exits 1 on the first mismatch.

Usage: python check-reports.py REPORT_FOLDER...
"""
import json
import os
import sys

import duckdb
import pandas

PANDAS = {"integer": {"int64"}, "double": {"float64"}, "string": {"object", "str", "string"}}
DUCKDB = {"integer": {"BIGINT"}, "double": {"DOUBLE"}, "string": {"VARCHAR"}}


def check(folder):
    with open(os.path.join(folder, "schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    csvs = sorted(n for n in os.listdir(folder) if n.endswith(".csv"))
    described = sorted(entry["file"] for entry in schema["files"])
    if csvs != described:
        sys.exit(f"{folder}: CSV files {csvs} but schema.json describes {described}")
    connection = duckdb.connect()
    for entry in schema["files"]:
        path = os.path.join(folder, entry["file"])
        frame = pandas.read_csv(path)
        described = connection.execute("DESCRIBE SELECT * FROM read_csv_auto(?)", [path]).fetchall()
        names = [c["name"] for c in entry["columns"]]
        if list(frame.columns) != names or [d[0] for d in described] != names:
            sys.exit(f"{path}: columns differ from schema.json")
        for column, (name, duck_type, *_) in zip(entry["columns"], described):
            want = column["type"]
            got = str(frame[name].dtype)
            if got not in PANDAS[want]:
                sys.exit(f"{path}: pandas reads {name} as {got}, the schema says {want}")
            if duck_type not in DUCKDB[want]:
                sys.exit(f"{path}: DuckDB reads {name} as {duck_type}, the schema says {want}")
        rows = connection.execute("SELECT count(*) FROM read_csv_auto(?)", [path]).fetchone()[0]
        if rows != len(frame) or rows == 0:
            sys.exit(f"{path}: DuckDB reads {rows} rows, pandas {len(frame)}")
        print(f"{path}: {rows} rows, {len(names)} columns, types as the schema says")


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        check(folder)
