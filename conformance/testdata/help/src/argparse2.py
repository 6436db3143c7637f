import argparse
p = argparse.ArgumentParser(prog="tasks", description="Track tasks.")
sub = p.add_subparsers(dest="command")
sub.add_parser("list", help="List the tasks.")
sub.add_parser("done", help="Mark a task done.")
p.parse_args()
