"""ltrrepro: reproduce learning-to-rank studies built on gradient boosted trees.

Public API (everything else may change):

* data: :class:`RankingDataset`, :func:`read_svmlight`, :func:`write_svmlight`,
  :func:`load_dataset`, :func:`load_fold`, :func:`make_synthetic`
* splits: :func:`trial_split`, :func:`random_query_split`
* metrics: :func:`evaluate`, :func:`ndcg`, :func:`dcg`, :func:`err`,
  :func:`pairwise_precision_at`, :class:`Metric`
"""
from .data import RankingDataset
from .datasets import DatasetNotFoundError, load_dataset, load_fold
from .svmlight import SVMLightFormatError, read_svmlight, write_svmlight
from .metrics import Metric, MetricResult, dcg, err, evaluate, ndcg, pairwise_precision_at
from .splits import QuerySplit, random_query_split, trial_split
from .synthetic import make_synthetic

__version__ = "0.1.0"

__all__ = [
    "RankingDataset", "read_svmlight", "write_svmlight", "SVMLightFormatError",
    "load_dataset", "load_fold", "DatasetNotFoundError", "make_synthetic",
    "QuerySplit", "random_query_split", "trial_split",
    "Metric", "MetricResult", "evaluate", "ndcg", "dcg", "err", "pairwise_precision_at",
]
