"""compare's t test on runs whose values differ but whose logs do not
(values a last bit apart): no division by zero (a traceback, found by
the gate's property test), the "no spread" branch instead."""
import orbbench.stats as orbstats


def test_values_a_bit_apart_with_equal_logs_are_no_spread():
    a = [10000.0, 10000.0 * (1 + 2.220446049250313e-16), 10000.0]
    b = [5000.0, 5000.0 * (1 + 2.220446049250313e-16), 5000.0]
    assert len(set(a)) == 2
    m = orbstats.compare_metric(a, b, True)
    assert m["se_log"] == 0.0 and m["verdict"] == "slower"
    assert "no spread within either side" in m["notes"]
    same = orbstats.compare_metric(a, a, True)
    assert same["verdict"] == "same" and same["p_value"] is None
