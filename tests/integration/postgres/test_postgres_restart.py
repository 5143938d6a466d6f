# A stopped pipeline resumes from its checkpoint: no change lost, none twice.
from conftest import Cdcd, pipeline_yaml


def test_restart_resumes_without_loss_or_duplicates(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, v text); INSERT INTO public.{t} VALUES (1, 'a')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    first = cdcd.wait_lines(2)
    pg.sql(f"INSERT INTO public.{t} VALUES (2, 'b')")
    first = cdcd.wait_lines(3)
    assert cdcd.stop() == 0
    # While cdcd is down.
    pg.sql(f"INSERT INTO public.{t} VALUES (3, 'c'); UPDATE public.{t} SET v = 'A' WHERE id = 1")
    cdcd.start()
    pg.sql(f"INSERT INTO public.{t} VALUES (4, 'd')")
    second = cdcd.wait_lines(3)
    assert cdcd.stop() == 0
    data = [l for l in first + second if l.startswith("DataChangeEvent")]
    assert data == [
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, a], op=INSERT, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[2, b], op=INSERT, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[3, c], op=INSERT, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, A], op=UPDATE, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[4, d], op=INSERT, meta=()}}",
    ]
    assert "resuming slot" in cdcd.stderr()
